"""Darknet's convention carried into a PyTorch port halfway: Darknet sums the loss over the
batch and so divides its configured learning rate by the batch size (and multiplies the
weight decay by it); the port divides the rate by the batch too, but its loss is already
averaged over the batch. Each step is then batch-size times smaller than the configured
rate asks for - 64 times here - and the run crawls.

Reported: "learning rate/batch_size and loss" -
https://github.com/andy-yun/pytorch-0.4-yolov3/issues/46 ("In the region_layer.py of
marvis/yolov2, all losses are summed, learning rate in train.py are divided into
batch_size ... origin: w' = w - lr * dw(average of batch), marvis: w' = w - lr/batch *
dw(sum of batch). In your region_layer.py, losses is divided by nB and also lr of
optimizer is divided by batch_size"). The same lines, and why they go together, in
marvis/pytorch-yolo2#104 ("the loss is sum but not the average for the batch") and
DeNA/PyTorch_YOLOv3#54 ("calculate loss without size averaging ... divide the learning
rate by the batch size"). Here a digits MLP with SGD, the cfg's rate 0.1 and decay 5e-4.

Measured (200 steps, 297 held-out digits): the bug's held-out accuracy 0.66 and last-20
training loss 2.15 (2.31 at the start); the fixed twin (the loss summed over the batch, as
Darknet's is) 0.91 and 0.056 a sample (3.60 summed over the batch).
Fix: sum the loss over the batch when the rate is divided by it (or average it and keep
the configured rate).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "learning rate/batch_size and loss"
LINK = "https://github.com/andy-yun/pytorch-0.4-yolov3/issues/46"
EXPECTED = ("LR_TOO_LOW",)
STEPS = 200
CFG = {"learning_rate": 0.1, "decay": 5e-4, "batch": 64}      # the Darknet-style cfg
HELD_OUT = 297


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    batch = CFG["batch"]
    optimizer = torch.optim.SGD(model.parameters(), lr=CFG["learning_rate"] / batch,
                                momentum=0.9, weight_decay=CFG["decay"] * batch)
    loss_fn = nn.CrossEntropyLoss(reduction="sum" if fixed else "mean")   # BUG: averaged
    mon = train_watched(model, optimizer, loss_fn,
                        batches(x[:-HELD_OUT], y[:-HELD_OUT], steps, batch_size=batch),
                        **watch)
    model.eval()
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon

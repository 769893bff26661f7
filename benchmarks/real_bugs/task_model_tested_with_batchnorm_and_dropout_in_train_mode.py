"""The task model of an active-learning loop (a VGG-style network with batch norm and
dropout) is scored on the test set without ``task_model.eval()``: the test batches are
normalised with their own statistics (and overwrite the running averages) and half the
classifier's units are dropped at random, so the test accuracy the loop reports - and
compares across labelling budgets - is that of a randomly thinned network.

Reported: "Related to computing test accuracy" - https://github.com/sinhasam/vaal/issues/2
("while computing the test accuracy I do not observe the task_model in eval mode ... as
the task_model is vgg16_bn which has batchnorm and dropout layers, so it is must to make
the task_model in eval mode before testing"; the author: "Yes, you are completely correct
about the issue!" and added the line). Here the 8x8 digits, a conv net with BatchNorm2d
after each convolution and dropout 0.5 before the output layer (vgg16_bn's classifier
rate), SGD lr 0.05 momentum 0.9, batches of 32, then a test pass in batches of 32 over 400
held-out digits (the repository's test function, run after training). Fix:
``task_model.eval()`` before testing.

Measured (test accuracy as the loop reports it, bug vs fixed): seed 0: 0.925 vs 0.975;
seeds + 1000: 0.902 vs 0.93.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._bnd import accuracy, bn_cnn, split_digits
from benchmarks.real_bugs._common import batches

TITLE = "Related to computing test accuracy"
LINK = "https://github.com/sinhasam/vaal/issues/2"
EXPECTED = ("VALIDATION_IN_TRAIN_MODE",)
STEPS = 200
TEST_BATCH = 32


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = split_digits(images=True)
    task_model = bn_cnn(dropout=0.5)
    optimizer = torch.optim.SGD(task_model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(task_model, optimizer, **watch) as mon:
        task_model.train()
        for xb, yb in batches(x, y, steps, batch_size=32):
            optimizer.zero_grad()
            loss = loss_fn(task_model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
        if fixed:
            task_model.eval()                # BUG when not fixed: still in train mode
        with torch.no_grad():
            scores = torch.cat([task_model(x_test[i:i + TEST_BATCH])
                                for i in range(0, len(x_test), TEST_BATCH)])
        mon.held_out_accuracy = accuracy(scores, y_test)
    return mon

"""The two training loops nested the wrong way round: the loop over epochs sits inside the
loop over mini-batches, so each batch gets all of its 10 updates in a row before the next
batch is drawn. The run makes exactly as many optimizer steps as the correct one and its
loss falls (each batch is fitted hard), but the model walks from one batch's optimum to the
next and ends shaped by the last few batches; it never makes ten passes over the data.

Reported: "Should epoch loop be inside or outside batch loop?" -
https://github.com/zplizzi/pytorch-ppo/issues/4 (the update loop iterated epochs inside
the minibatch loop; the author: "this is definitely backwards. should go through all batches
each epoch."). The report's update phase fits a fixed buffer in shuffled minibatches for a
number of epochs with Adam; here the same structure on a fixed labelled set, the 8x8 digits
(an MLP 64 -> 64 -> 10, batches of 32 from a shuffled DataLoader, Adam 3e-3, 10 epochs).
Fix: `for epoch in range(EPOCHS): for xb, yb in loader: ...` (the same steps, the epochs
outside).

Measured (held-out accuracy, the last 360 digits): 0.853 with the bug, 0.894 fixed;
seeds + 1000: 0.872 vs 0.903.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._keras_ports import accuracy, digits_split

TITLE = "Should epoch loop be inside or outside batch loop?"
LINK = "https://github.com/zplizzi/pytorch-ppo/issues/4"
EXPECTED = ("DATA_ORDER_REPEATS",)
STEPS = 450              # 10 epochs of 45 batches
EPOCHS = 10


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = digits_split()
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=32,
                                         shuffle=True)
    epochs = max(1, min(EPOCHS, steps // len(loader)))
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)

    def update(xb, yb):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        optimizer.step()
        mon.step(loss)

    with nd.watch(model, optimizer, **watch) as mon:
        if fixed:
            for epoch in range(epochs):
                for xb, yb in loader:
                    update(xb, yb)
        else:
            for xb, yb in loader:                  # BUG: the epochs inside the batch loop
                for epoch in range(epochs):
                    update(xb, yb)
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    return mon

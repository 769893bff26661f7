"""Regression labels kept as an (N, 1) column while the model's readout is squeezed to
(N,): ``MSELoss()(readout, labels)`` broadcasts the two into an (N, N) table - every
prediction against every label of the batch - so the loss is minimised by predicting the
batch mean for every sample and the model learns next to nothing of its inputs. PyTorch
only prints a UserWarning ("Using a target size ... that is different to the input size").

Reported: "Loss broadcasting fix" - https://github.com/IntelLabs/matsciml/pull/347
("labels come out of the pipeline with an extra dimension (e.g. [N, 1]) compared to graph
readouts. The resulting behavior is actually very different from the intention"; merged,
labelled bug). Here an MLP regresses the digit's value (standardised) from the 8x8
digits, its readout squeezed to (N,), the labels an (N, 1) column. Fix: give the loss
matching shapes (``labels.view(-1)``).

Harm (held-out R^2 of the predicted value, bug vs fixed): 0.01 vs 0.79; seeds + 1000:
0.01 vs 0.81.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._shape_slips import minibatches, record, split

TITLE = "Loss broadcasting fix"
LINK = "https://github.com/IntelLabs/matsciml/pull/347"
EXPECTED = ("LOSS_BROADCAST_OVER_BATCH", "LOSS_SHAPE_MISMATCH")
STEPS = 200


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        self.head = nn.Linear(64, 1)

    def forward(self, x):
        return self.head(self.body(x)).squeeze(-1)      # the readout: (N,)


def r_squared(pred, target):
    return 1 - ((pred - target) ** 2).mean() / ((target - target.mean()) ** 2).mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_train, d_train, x_test, d_test = split()
    mean, std = d_train.float().mean(), d_train.float().std()
    labels = ((d_train.float() - mean) / std).unsqueeze(1)      # the pipeline's (N, 1) column
    test_labels = (d_test.float() - mean) / std
    model = Regressor()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for index in minibatches(len(x_train), steps):
            target = labels[index]
            if fixed:
                target = target.view(-1)
            optimizer.zero_grad()
            loss = loss_fn(model(x_train[index]), target)      # BUG: (N,) against (N, 1)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        record("held-out R^2", r_squared(model(x_test), test_labels))
    return mon

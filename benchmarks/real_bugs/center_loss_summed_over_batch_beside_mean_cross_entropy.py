"""Center loss written by hand next to the classifier's cross-entropy: the center term is
the squared distance of each feature to its class center, SUMMED over the batch (halved),
while the cross-entropy is the batch MEAN. The two terms are reduced differently, so the
center term weighs batch-size times (64 here) what its weight of 1 says: it makes about 48
of the first step's loss of 50 and most of the network's gradient, so training mostly
pulls each feature onto its class center instead of separating the classes, and the
classifier reading the 2-D features ends far worse. The loss falls nicely.

Reported: "gradient needs to be divided by batch size" -
https://github.com/jxgu1016/MNIST_center_loss_pytorch/issues/9 ("It appears that gradient is
not being divided by batch size in CenterlossFunc()"; the reporter divides the loss and the
features' gradient by ``feature.size()[0]`` and shows the features after; the maintainer:
"May be your are right... The same operation is also in other loss function like
cross_entropy_loss"). The same in davidsandberg/facenet#237 ("the center loss should be
divided by the batch size", fixed). Here the repository's set-up on the 8x8 digits: an MLP
to a 2-D PReLU feature, a linear classifier on it with log-softmax and NLL, center loss
with its hand-written backward (the centers, a parameter of their own, moved by the delta
rule with SGD at lr 0.5, as in the repository), center weight 1, the network by Adam (the
repository's first optimizer) at lr 1e-2, batches of 64, 300 steps.

Fix: divide the center term by the batch size (a per-sample mean, like the NLL).

Measured (held-out accuracy, 297 digits): 0.354 with the bug, 0.828 fixed; seeds + 1000:
0.340 vs 0.855.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._red297 import split

TITLE = "gradient needs to be divided by batch size"
LINK = "https://github.com/jxgu1016/MNIST_center_loss_pytorch/issues/9"
EXPECTED = ("LOSS_TERMS_REDUCED_DIFFERENTLY",)
STEPS = 300
CENTER_WEIGHT = 1.0


class CenterNet(nn.Module):
    def __init__(self, classes=10, hidden=128):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(64, hidden), nn.PReLU(), nn.Linear(hidden, 2),
                                  nn.PReLU())
        self.head = nn.Linear(2, classes)

    def forward(self, x):
        feature = self.body(x)
        return feature, F.log_softmax(self.head(feature), dim=1)


class CenterLoss(torch.autograd.Function):
    """Half the squared distance of each feature to its class center, with the hand-written
    backward of center-loss implementations: the features get the distance's gradient, the
    centers the delta rule (each center moved toward its batch members' mean, counted + 1).
    ``per_sample``: the loss and the features' gradient divided by the batch size."""

    @staticmethod
    def forward(ctx, feature, labels, centers, per_sample):
        ctx.save_for_backward(feature, labels, centers)
        ctx.scale = feature.shape[0] if per_sample else 1
        return (feature - centers[labels]).pow(2).sum() / 2 / ctx.scale

    @staticmethod
    def backward(ctx, grad_output):
        feature, labels, centers = ctx.saved_tensors
        diff = feature - centers[labels]
        counts = torch.ones(len(centers)).index_add_(0, labels, torch.ones(len(labels)))
        toward = torch.zeros_like(centers).index_add_(0, labels, -diff) / counts[:, None]
        return grad_output * diff / ctx.scale, None, toward, None


@torch.no_grad()
def accuracy(model, x, y):
    model.eval()
    _, log_probs = model(x)
    model.train()
    return (log_probs.argmax(1) == y).float().mean().item()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, xh, yh = split()
    model = CenterNet()
    centers = nn.Parameter(torch.randn(10, 2))     # the center-loss module's own parameter
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    center_step = torch.optim.SGD([centers], lr=0.5)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, batch_size=64, seed=0):
            feature, log_probs = model(xb)
            # BUG (fixed=False): the center term summed over the batch, beside a mean NLL
            loss = F.nll_loss(log_probs, yb) + \
                CENTER_WEIGHT * CenterLoss.apply(feature, yb, centers, fixed)
            optimizer.zero_grad()
            center_step.zero_grad()
            loss.backward()
            optimizer.step()
            center_step.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, xh, yh)
    return mon

"""Pieces real-bug batch 179's self-supervised cases share (each case keeps its own bug in
its own file): a BYOL learner on the 8x8 digits (online backbone, projector and predictor,
an EMA target of backbone and projector), its loss, and the two-view training batches.
The views, encoder, NT-Xent loss and nearest-centroid probe are batch 111's
(benchmarks/real_bugs/_ssl_digits.py)."""
import copy

import torch
from torch.nn import functional as F

from benchmarks.real_bugs._common import classification, index_batches
from benchmarks.real_bugs._ssl_digits import encoder, probe_accuracy, view  # noqa: F401

BATCH = 128


def digits():
    return classification()


def two_view_batches(x, steps, batch_size=BATCH):
    """``steps`` pairs of views of shuffled digit batches (views drawn from torch's global
    generator, so a case's torch.manual_seed sets them)."""
    for index in index_batches(len(x), steps, batch_size):
        xb = x[index]
        yield view(xb), view(xb)


def head(inputs, outputs, hidden=128):
    """BYOL's projector/predictor MLP, batch-normalised in its hidden layer as in the paper
    (without the normalisation a BYOL this small collapses to a constant)."""
    return torch.nn.Sequential(torch.nn.Linear(inputs, hidden),
                               torch.nn.BatchNorm1d(hidden), torch.nn.ReLU(),
                               torch.nn.Linear(hidden, outputs))


class Online(torch.nn.Module):
    """BYOL's online network: backbone (what the probe reads), projector, predictor."""

    def __init__(self, hidden=128, features=32, projection=32):
        super().__init__()
        self.backbone = encoder(hidden, features)
        self.projector = head(features, projection)
        self.predictor = head(projection, projection)

    def project(self, x):
        return self.projector(self.backbone(x))

    def forward(self, x):
        return self.predictor(self.project(x))


def target_of(online):
    """The target network: a frozen copy of the online backbone and projector."""
    target = torch.nn.Sequential(copy.deepcopy(online.backbone),
                                 copy.deepcopy(online.projector))
    for p in target.parameters():
        p.requires_grad_(False)
    return target


@torch.no_grad()
def ema_update(target, online, tau):
    """target <- tau * target + (1 - tau) * online (backbone and projector)."""
    sources = list(online.backbone.parameters()) + list(online.projector.parameters())
    for t, s in zip(target.parameters(), sources):
        t.mul_(tau).add_(s, alpha=1 - tau)


def regression(p, z):
    """BYOL's loss for one pair: 2 - 2 cos(prediction, target projection), batch mean."""
    return (2 - 2 * F.cosine_similarity(p, z.detach(), dim=-1)).mean()

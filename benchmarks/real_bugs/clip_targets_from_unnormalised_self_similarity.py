"""A from-scratch CLIP whose loss departs from the paper in two ways: the projected image
and text embeddings (LayerNorm outputs) are never L2-normalised, so the logits are raw dot
products of 32-d vectors at temperature 1 (unbounded, tens in size), and the targets are
not the identity but a softmax of the model's own image-image and text-text similarities.
Both towers can lower such a loss by making the embeddings of different pairs alike (the
targets spread as the embeddings draw together, so fewer negatives are pushed away), and
the raw dot products let a few large components dominate the logits. The loss falls;
nothing errors; the pairs are told apart much worse.

Reported: "Problems with Loss Function" -
https://github.com/moein-shariatnia/OpenAI-CLIP/issues/16 (the reporter listed the missing
L2 normalisation before the dot product, the identity targets the paper uses, and warned
that without the contrastive negatives everything collapses; the author's fix, PR #28,
normalises the projections and uses id-driven targets). Here: the repository's projection
head (linear, GELU, linear, residual, LayerNorm) on an MLP image tower and an embedding-
bag text tower, digits paired with caption-like token sequences
(benchmarks/real_bugs/_clip_pairs.py).
Fix: L2-normalise both projections, scale the cosines by CLIP's learnable logit scale, and
use the pairs' identity as the targets (the symmetric cross-entropy against ``arange``).

Measured (300 Adam steps, batch 64, 1,297 training pairs, retrieval among the 500 held-out
pairs, seed 0): held-out image-to-text recall@1 0.11 and recall@5 0.44 for the bug against
0.33 and 0.78 for the fixed twin; text-to-image 0.14 / 0.45 against 0.39 / 0.79 (seeds
shifted by 1000: image-to-text 0.21 / 0.59 against 0.30 / 0.73). In a
first draft without the LayerNorm in the heads (embedding norms free to grow) the same
loss collapsed to chance (recall@1 0.002).

The model-derived targets are soft targets with the model's graph, which is what
CONSISTENCY_TARGET_NOT_DETACHED describes, so that code counts as naming the cause.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._clip_pairs import (TRAIN, ImageTower, TextTower, index_batches,
                                              INIT_LOGIT_SCALE, noisy, pairs, retrieval,
                                              symmetric_loss)

TITLE = "Problems with Loss Function"
LINK = "https://github.com/moein-shariatnia/OpenAI-CLIP/issues/16"
EXPECTED = ("CONTRASTIVE_TARGETS_FROM_OWN_SIMILARITY", "CONSISTENCY_TARGET_NOT_DETACHED",
            "CONTRASTIVE_LOGITS_UNNORMALISED")
STEPS = 300
DIM = 32


class ProjectionHead(nn.Module):
    def __init__(self, dim=DIM):
        super().__init__()
        self.projection = nn.Linear(dim, dim)
        self.fc = nn.Linear(dim, dim)
        self.layer_norm = nn.LayerNorm(dim)

    def forward(self, x):
        projected = self.projection(x)
        return self.layer_norm(self.fc(F.gelu(projected)) + projected)


class Clip(nn.Module):
    """Backbones whose features end in a ReLU (like a ResNet's pooled features), each with
    the repository's projection head; the fix adds CLIP's learnable logit scale (the
    repository has a fixed temperature of 1)."""

    def __init__(self, learnable_scale):
        super().__init__()
        self.image = nn.Sequential(ImageTower(dim=DIM), nn.ReLU(), ProjectionHead())
        self.text = nn.Sequential(TextTower(dim=DIM), nn.ReLU(), ProjectionHead())
        if learnable_scale:
            self.logit_scale = nn.Parameter(torch.tensor(INIT_LOGIT_SCALE))


def soft_cross_entropy(logits, targets):
    return -(targets * F.log_softmax(logits, dim=-1)).sum(1).mean()


def clip_loss(model, image, text, fixed):
    if fixed:                      # the fix: cosines, learnable scale, identity targets
        image, text = F.normalize(image, dim=1), F.normalize(text, dim=1)
        return symmetric_loss(model.logit_scale.exp() * image @ text.T)
    logits = text @ image.T        # BUG: raw dot products, temperature 1
    targets = F.softmax((image @ image.T + text @ text.T) / 2, dim=-1)   # BUG: own similarity
    return (soft_cross_entropy(logits, targets) + soft_cross_entropy(logits.T, targets.T)) / 2


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    (images, texts, _), (held_images, held_texts, _) = pairs()
    model = Clip(learnable_scale=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(TRAIN, steps, seed=0):
            optimizer.zero_grad()
            loss = clip_loss(model, model.image(noisy(images[index], generator)),
                             model.text(texts[index]), fixed)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        mon.held_out_retrieval = retrieval(model.image(held_images), model.text(held_texts))
    return mon

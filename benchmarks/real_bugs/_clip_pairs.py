"""Shared pieces of the batch-121 CLIP-style cases: 8x8 digits paired with a second
"modality" and a two-tower model trained with the symmetric in-batch contrastive loss.

The second modality is a caption-like token sequence read off the same image: the digit
is pooled to 4x4 cells and each cell's ink quantised to one of four levels, a token per
cell (id = cell * 4 + level, 64 ids, 16 tokens). Each image therefore has its own caption
(pairs are instance-level, like image-text pairs), and the text tower must learn which
coarse layout goes with which fine image. Held-out quality is cross-modal retrieval over
the 500 held-out pairs (recall@1 and @5, image-to-text and text-to-image).
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd

from benchmarks.real_bugs._common import classification  # noqa: F401  (re-exported)

TRAIN = 1297                       # the rest of the 1,797 digits (500) are held out
LEVELS = 4
VOCAB = 16 * LEVELS
INIT_LOGIT_SCALE = math.log(1 / 0.07)      # CLIP's initial temperature, 0.07


def captions(x):
    """(N, 64) pixels in [0, 1] -> (N, 16) token ids: 2x2 cells pooled, ink quantised."""
    cells = F.avg_pool2d(x.reshape(-1, 1, 8, 8), 2).reshape(-1, 16)
    levels = (cells * LEVELS).clamp(max=LEVELS - 1).long()
    return torch.arange(16) * LEVELS + levels


def pairs():
    """(images, captions, labels) split into train and held-out."""
    x, y = classification()
    t = captions(x)
    return (x[:TRAIN], t[:TRAIN], y[:TRAIN]), (x[TRAIN:], t[TRAIN:], y[TRAIN:])


def index_batches(n, steps, batch_size=64, seed=0):
    generator = torch.Generator().manual_seed(seed)
    done = 0
    while True:
        order = torch.randperm(n, generator=generator)
        for start in range(0, n - batch_size + 1, batch_size):
            yield order[start:start + batch_size]
            done += 1
            if done == steps:
                return


class ImageTower(nn.Module):
    def __init__(self, width=128, dim=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(64, width), nn.ReLU(), nn.Linear(width, dim))

    def forward(self, x):
        return self.net(x)


class TextTower(nn.Module):
    def __init__(self, vocab=VOCAB, width=64, dim=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.net = nn.Sequential(nn.ReLU(), nn.Linear(width, width), nn.ReLU(),
                                 nn.Linear(width, dim))

    def forward(self, tokens):
        return self.net(self.embed(tokens).mean(1))


def noisy(x, generator, sigma=0.1):
    return x + sigma * torch.randn(x.shape, generator=generator)


def symmetric_loss(logits):
    """CLIP's loss: cross-entropy over texts for each image and over images for each text."""
    labels = torch.arange(len(logits))
    return (F.cross_entropy(logits, labels) + F.cross_entropy(logits.T, labels)) / 2


def retrieval(image_features, text_features):
    """Recall@1 and @5 both ways over held-out pairs (row i of each is one pair)."""
    similarity = F.normalize(image_features, dim=1) @ F.normalize(text_features, dim=1).T
    truth = torch.arange(len(similarity))[:, None]
    scores = {}
    for name, sim in (("i2t", similarity), ("t2i", similarity.T)):
        top = sim.topk(5, dim=1).indices
        scores[f"{name}@1"] = (top[:, :1] == truth).any(1).float().mean().item()
        scores[f"{name}@5"] = (top == truth).any(1).float().mean().item()
    return scores


class TwoTower(nn.Module):
    """Image tower, text tower and CLIP's learnable log inverse temperature."""

    def __init__(self, vocab=VOCAB):
        super().__init__()
        self.image = ImageTower()
        self.text = TextTower(vocab)
        self.logit_scale = nn.Parameter(torch.tensor(INIT_LOGIT_SCALE))


def held_out_retrieval(model, images, texts):
    model.eval()
    with torch.no_grad():
        scores = retrieval(model.image(images), model.text(texts))
    model.train()
    return scores


def train_two_tower(steps, loss_of, after_training=None, **watch):
    """Adam on a fresh ``TwoTower`` under ``nd.watch``, 64 noisy training pairs a step: the
    batch's image and text features, each L2-normalised, go to ``loss_of(model, image,
    text)``, where the cases put their loss (and its bug). ``after_training(model,
    held_images, held_texts)``, if given, runs inside the watched block after the last step
    (a scoring the monitor should see). Returns the closed monitor, the model, the held-out
    images and texts, and what ``after_training`` returned."""
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    (images, texts, _), (held_images, held_texts, _) = pairs()
    model = TwoTower()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scored = None
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(TRAIN, steps, seed=0):
            optimizer.zero_grad()
            image = F.normalize(model.image(noisy(images[index], generator)), dim=1)
            text = F.normalize(model.text(texts[index]), dim=1)
            loss = loss_of(model, image, text)
            loss.backward()
            optimizer.step()
            mon.step(loss)
        if after_training is not None:
            scored = after_training(model, held_images, held_texts)
    return mon, model, held_images, held_texts, scored

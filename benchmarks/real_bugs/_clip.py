"""Shared pieces of the batch-204 CLIP-style cases (learned temperature, in-batch negatives,
text pooling). Built on batch 121's image-caption pairs (benchmarks/real_bugs/_clip_pairs.py:
8x8 digits, each with its own caption-like token sequence) and its towers.

Unlike ``_clip_pairs.train_two_tower``, the data order and the image noise here are drawn
from a generator seeded off the torch seed the case set, so ``--shift-seeds`` moves them too.

``sequence_captions`` gives a second caption form for the text-pooling case: only the 2x2
cells that hold ink, in reading order, each as one token, between BOS and EOS, then padding
- captions of different lengths, read by a causal (GRU) text tower at one position.
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._clip_pairs import (TRAIN, ImageTower, TextTower, TwoTower,
                                              captions, noisy, retrieval, symmetric_loss)
from benchmarks.real_bugs._common import classification

__all__ = ["TRAIN", "ImageTower", "TextTower", "TwoTower", "normalised_features",
           "clip_loss", "captions", "noisy", "retrieval",
           "symmetric_loss", "INIT_LOGIT_SCALE", "data_generator", "batches",
           "sequence_captions", "PAD", "BOS", "EOS", "SEQ_VOCAB", "CausalTextTower",
           "pairs", "held_out", "train_clip"]

INIT_LOGIT_SCALE = math.log(1 / 0.07)      # CLIP's initial temperature, 0.07
PAD, BOS, EOS = 0, 1, 2
LEVELS = 3                                  # ink levels of a non-empty cell
SEQ_VOCAB = 3 + 16 * LEVELS


def normalised_features(model, images, texts):
    """Each tower's features, L2-normalised (CLIP's image and text embeddings)."""
    return F.normalize(model.image(images), dim=1), F.normalize(model.text(texts), dim=1)


def clip_loss(model, image, text):
    """CLIP's symmetric in-batch loss at the learned temperature."""
    return symmetric_loss(model.logit_scale.exp() * image @ text.T)


def data_generator():
    """A generator seeded off the seed the case gave torch.manual_seed (shifted with it)."""
    return torch.Generator().manual_seed(torch.initial_seed())


def batches(n, steps, generator, batch_size=64):
    done = 0
    while True:
        order = torch.randperm(n, generator=generator)
        for start in range(0, n - batch_size + 1, batch_size):
            yield order[start:start + batch_size]
            done += 1
            if done == steps:
                return


def sequence_captions(x, context):
    """(N, 64) pixels -> (N, context) ids: BOS, one token per inked 2x2 cell (its cell and
    its ink level, 1-3), EOS, PAD. A caption longer than the context is cut at ``context``
    tokens - its EOS (and last cells) fall off, as a fixed-context tokenizer truncates."""
    cells = F.avg_pool2d(x.reshape(-1, 1, 8, 8), 2).reshape(-1, 16)
    levels = (cells * (LEVELS + 1)).clamp(max=LEVELS).long()
    rows = []
    for row in levels.tolist():
        ids = [BOS] + [3 + cell * LEVELS + level - 1 for cell, level in enumerate(row)
                       if level > 0] + [EOS]
        ids = ids[:context]
        rows.append(ids + [PAD] * (context - len(ids)))
    return torch.tensor(rows)


class CausalTextTower(nn.Module):
    """Token embeddings -> a GRU (each position sees only the tokens up to it) -> a
    projection, read at one position per caption (``positions``)."""

    def __init__(self, vocab=SEQ_VOCAB, width=64, dim=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.gru = nn.GRU(width, width, batch_first=True)
        self.project = nn.Linear(width, dim)

    def forward(self, tokens, positions):
        states, _ = self.gru(self.embed(tokens))
        return self.project(states[torch.arange(len(tokens)), positions])


def pairs(text_of=captions):
    """(train images, train texts), (held-out images, held-out texts): 1,297 / 500."""
    x, _ = classification()
    t = text_of(x)
    return (x[:TRAIN], t[:TRAIN]), (x[TRAIN:], t[TRAIN:])


def held_out(image_features, text_features):
    return retrieval(image_features, text_features)


def train_clip(model, steps, features_of, loss_of, lr=1e-3, micro_batches=1,
               after_training=None, **watch):
    """Adam on ``model`` under ``nd.watch``, 64 training pairs a step (images with pixel
    noise). ``features_of(model, images, texts)`` -> (image, text) L2-normalised features;
    ``loss_of(model, image, text)`` -> the loss. ``micro_batches`` > 1 splits each batch of
    64 into that many micro-batches, each scored on its own and its loss (divided by their
    number) backpropagated, with one optimizer step per batch (gradient accumulation).
    Held-out retrieval (``features_of`` on the 500 held-out pairs, compared by cosine)
    lands on ``mon.held_out_retrieval``; ``after_training(model, held_images,
    held_texts)``, if given, replaces that scoring and runs inside the watched block after
    the last step (a scoring the monitor should see), its dict set there instead."""
    generator = data_generator()
    (images, texts), held = pairs(getattr(model, "text_of", captions))
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in batches(TRAIN, steps, generator):
            optimizer.zero_grad()
            total = 0.0
            for part in index.chunk(micro_batches):
                image, text = features_of(model, noisy(images[part], generator), texts[part])
                loss = loss_of(model, image, text) / micro_batches
                loss.backward()
                total = total + loss.detach()
            optimizer.step()
            mon.step(total if micro_batches > 1 else loss)
        if after_training is not None:
            mon.held_out_retrieval = after_training(model, held[0], held[1])
            return mon
    model.eval()
    with torch.no_grad():
        image, text = features_of(model, held[0], held[1])
    model.train()
    mon.held_out_retrieval = held_out(image, text)
    return mon

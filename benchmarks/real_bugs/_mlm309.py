"""Batch 309's shared pieces: masked-language-model pretraining written by hand from a first
tutorial. Character "sentences" cut from the sonnets (the first 80% of the text trains, the
last 20% is held out), each framed as [CLS] chars [SEP] and padded; a small masked-LM
model whose output layer is the token embedding itself (tied output embeddings, with an
output-only bias); and the held-out measure every case reports: the share of held-out
characters, replaced by [MASK], that the model fills in correctly.

The masking step itself (15% of the real tokens chosen, 80/10/10 replacement, labels -100
elsewhere) is written out in each case, since that is where the reported bugs live.
"""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import characters

_IDS, _CHARS = characters()
PAD = 0                                  # characters are 1.._CHARS
CHARS = _CHARS
CLS, SEP, MASK = CHARS + 1, CHARS + 2, CHARS + 3
VOCAB = CHARS + 4
WIDTH = 40                               # [CLS] + up to 38 characters + [SEP], padded
SHARE = 0.15                             # of the real tokens chosen for prediction
_TEXT = _IDS + 1
_SPLIT = int(len(_TEXT) * 0.8)
TRAIN_TEXT, HELD_TEXT = _TEXT[:_SPLIT], _TEXT[_SPLIT:]


def sentences(text, count, seed, shortest=12, longest=WIDTH - 2, width=WIDTH):
    """``count`` rows [CLS] c1 .. cn [SEP] PAD .. of random spans of ``text`` (n drawn in
    [shortest, longest]), as an int64 (count, width) tensor."""
    rng = np.random.default_rng(seed)
    rows = torch.full((count, width), PAD, dtype=torch.int64)
    lengths = rng.integers(shortest, longest + 1, count)
    starts = rng.integers(0, len(text) - longest - 1, count)
    for row, (start, n) in enumerate(zip(starts.tolist(), lengths.tolist())):
        rows[row, 0] = CLS
        rows[row, 1:n + 1] = text[start:start + n]
        rows[row, n + 1] = SEP
    return rows


def special(rows):
    """Where the rows hold [CLS], [SEP] or padding (never chosen for prediction)."""
    return (rows == PAD) | (rows == CLS) | (rows == SEP)


def random_characters(shape, generator):
    """Replacement ids for the 10% "random token" share: real characters only."""
    return torch.randint(1, CHARS + 1, shape, generator=generator)


class TinyBert(nn.Module):
    """A bidirectional GRU encoder (BERT's Transformer in the tutorials; the bugs of this
    batch live in the data and the loss, not the encoder, and a GRU learns this text in a
    few hundred CPU steps) under BERT's masked-LM head: a dense layer, GELU and LayerNorm,
    then an output layer tied to the token embedding (logits = h @ E^T + bias)."""

    def __init__(self, dim=64, vocab=VOCAB):
        super().__init__()
        self.tokens = nn.Embedding(vocab, dim)
        nn.init.normal_(self.tokens.weight, std=dim ** -0.5)
        self.encoder = nn.GRU(dim, dim, batch_first=True, bidirectional=True)
        self.transform = nn.Linear(2 * dim, dim)
        self.norm = nn.LayerNorm(dim)
        self.bias = nn.Parameter(torch.zeros(vocab))

    def forward(self, input_ids):
        h = self.encoder(self.tokens(input_ids))[0]
        h = self.norm(F.gelu(self.transform(h)))
        return h @ self.tokens.weight.t() + self.bias


def held_out_rows(count=512):
    return sentences(HELD_TEXT, count, seed=12345)


def mask_for_evaluation(rows, seed=7):
    """Every chosen character replaced by [MASK] (no 10/10 shares): (inputs, labels)."""
    g = torch.Generator().manual_seed(seed)
    chosen = (torch.rand(rows.shape, generator=g) < SHARE) & ~special(rows)
    return rows.masked_fill(chosen, MASK), rows.masked_fill(~chosen, -100)


@torch.no_grad()
def masked_scores(model, rows):
    """(accuracy, mean cross-entropy) at the masked characters of ``rows``."""
    was = model.training
    model.eval()
    inputs, labels = mask_for_evaluation(rows)
    logits = model(inputs)
    model.train(was)
    read = labels != -100
    accuracy = (logits.argmax(-1)[read] == labels[read]).float().mean().item()
    return accuracy, F.cross_entropy(logits[read], labels[read]).item()

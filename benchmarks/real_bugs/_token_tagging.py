"""A softmax BIO tagger for the cases of real-bug batch 276 (beginner named-entity
recognition and token tagging from first tutorials).

The sentences are those of ``_crf_tagging`` (4-16 word ids, PER and LOC entities one to
three words long whose type shows in their last word; O=0, B-PER=1, I-PER=2, B-LOC=3,
I-LOC=4; id 0 is the padding), optionally with rarer entities. ``Tagger`` is a BiLSTM (or
a small Transformer encoder, BERT-like) with a linear layer giving one score per tag and
word, trained with token-level cross-entropy as in the first tutorials. ``held_out_f1``
decodes by argmax and scores entity F1 (``_crf_tagging.entity_f1``).
"""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._crf_tagging import (LOC_WORDS, O_WORDS, PER_WORDS, SHARED_WORDS,
                                               TAGS, VOCAB, entity_f1, gold_lists,
                                               length_mask, trimmed)

TRAIN, HELD_OUT = 1200, 400
LONGEST = 16


def sentences(count, seed, entity_rate=0.25):
    """``count`` sentences (ids, tags, lengths) as ``_crf_tagging.sentences``, an entity
    starting at a word with probability ``entity_rate``."""
    rng = np.random.default_rng(seed)
    ids = np.zeros((count, LONGEST), dtype=np.int64)
    tags = np.zeros((count, LONGEST), dtype=np.int64)
    lengths = rng.integers(4, LONGEST + 1, count)
    for row, length in enumerate(lengths):
        k = 0
        while k < length:
            if rng.random() < entity_rate:
                kind = rng.integers(0, 2)
                span = min(int(rng.integers(1, 4)), length - k)
                last = PER_WORDS if kind == 0 else LOC_WORDS
                for j in range(span):
                    ids[row, k + j] = rng.choice(last if j == span - 1 else SHARED_WORDS)
                    tags[row, k + j] = (1 if j == 0 else 2) + 2 * kind
                k += span
            else:
                ids[row, k] = rng.choice(SHARED_WORDS) if rng.random() < 0.15 \
                    else rng.choice(O_WORDS)
                k += 1
    return torch.from_numpy(ids), torch.from_numpy(tags), torch.from_numpy(lengths)


def data(entity_rate=0.25):
    """(train, held_out): each (ids, tags, lengths); the seeds go through
    np.random.default_rng (the benchmark shifts them)."""
    return sentences(TRAIN, 0, entity_rate), sentences(HELD_OUT, 1, entity_rate)


class Tagger(nn.Module):
    """Word ids (B, T) -> tag scores (B, T, TAGS). ``kind`` "lstm": a BiLSTM over the
    embeddings; "transformer": two post-norm encoder layers with learned positions."""

    def __init__(self, kind="lstm", dim=32, hidden=32):
        super().__init__()
        self.kind = kind
        self.embed = nn.Embedding(VOCAB, dim, padding_idx=0)
        if kind == "lstm":
            self.encoder = nn.LSTM(dim, hidden, batch_first=True, bidirectional=True)
            width = 2 * hidden
        else:
            self.positions = nn.Parameter(torch.randn(LONGEST, dim) * 0.1)
            layer = nn.TransformerEncoderLayer(dim, 4, 2 * dim, dropout=0.0,
                                               batch_first=True)
            self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
            width = dim
        self.out = nn.Linear(width, TAGS)

    def forward(self, ids):
        x = self.embed(ids)
        if self.kind == "lstm":
            x, _ = self.encoder(x)
        else:
            x = self.encoder(x + self.positions[:ids.shape[1]],
                             src_key_padding_mask=ids == 0)
        return self.out(x)


@torch.no_grad()
def predicted_lists(model, held, batch_size=100):
    """Argmax tag lists of the held-out sentences (each cut to its length)."""
    ids, tags, lengths = held
    was = model.training
    model.eval()
    out = []
    for start in range(0, len(ids), batch_size):
        index = torch.arange(start, min(start + batch_size, len(ids)))
        bi, _, bl = trimmed(ids, tags, lengths, index)
        best = model(bi).argmax(-1)
        out += [best[b, :n].tolist() for b, n in enumerate(bl.tolist())]
    model.train(was)
    return out


def held_out_f1(model, held, gold_tags=None):
    """Entity F1 of argmax tags on the held-out split (``gold_tags``: the held-out tags as
    the evaluation encodes them, default the true ones)."""
    ids, tags, lengths = held
    gold = gold_lists(tags if gold_tags is None else gold_tags, lengths)
    return entity_f1(predicted_lists(model, held), gold)


__all__ = ["TAGS", "Tagger", "data", "entity_f1", "held_out_f1", "length_mask",
           "predicted_lists", "sentences", "trimmed"]

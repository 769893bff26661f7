"""Shared pieces of the batch-215 cases (embedding layers and token ids): a synthetic
four-class corpus of word ranks, the id layouts that map ranks to embedding rows, padded
mini-batches, a bag-of-embeddings classifier and the held-out accuracy.

The corpus: a sentence of 4-16 words has a class 0..3. Its words are filler words (Zipf over
the ranks 8..599, the frequent ones first) and 2 or 3 cue words: each class owns two cue
words, ranks c and c + 4, the most frequent words of the corpus since every sentence holds
some. A sentence has 2 cues of its own class, and half of the sentences add one cue of
another class (so a model must count the cues, not just see one). Ranks from VOCAB_WORDS on
are the rare words a vocabulary capped at VOCAB_WORDS leaves out (about 8% of the filler
tokens): they become the unknown id. Padding is -1 in the rank tensor.
"""
import torch
from torch import nn

CLASSES = 4
CUES = 2 * CLASSES            # ranks 0..7
VOCAB_WORDS = 300             # the vocabulary keeps the ranks 0..299
ALL_WORDS = 600
MIN_LEN, MAX_LEN = 4, 16
PAD_RANK = -1


def corpus(count, generator):
    """(ranks (count, MAX_LEN) int64 with PAD_RANK padding, labels (count,))."""
    fill_p = 1.0 / torch.arange(1, ALL_WORDS - CUES + 1, dtype=torch.float64)
    ranks = torch.full((count, MAX_LEN), PAD_RANK, dtype=torch.long)
    labels = torch.randint(CLASSES, (count,), generator=generator)
    lengths = torch.randint(MIN_LEN, MAX_LEN + 1, (count,), generator=generator)
    extra = torch.rand(count, generator=generator) < 0.5
    other = (labels + torch.randint(1, CLASSES, (count,), generator=generator)) % CLASSES
    for i in range(count):
        n = int(lengths[i])
        words = CUES + torch.multinomial(fill_p, n, replacement=True, generator=generator)
        positions = torch.randperm(n, generator=generator)
        own = labels[i] + CLASSES * torch.randint(2, (2,), generator=generator)
        words[positions[0]], words[positions[1]] = own[0], own[1]
        if extra[i]:
            words[positions[2]] = other[i] + CLASSES * torch.randint(2, (), generator=generator)
        ranks[i, :n] = words
    return ranks, labels


def encode(ranks, pad=0, unk=1, offset=2, vocab_words=VOCAB_WORDS):
    """Ids of a vocabulary that puts rank r at row r + offset, the left-out ranks (>=
    vocab_words) at ``unk`` and padding at ``pad``."""
    ids = torch.where(ranks >= vocab_words, torch.full_like(ranks, unk), ranks + offset)
    return torch.where(ranks == PAD_RANK, torch.full_like(ranks, pad), ids)


def batches(ids, labels, steps, generator, pad=0, batch_size=32):
    """``steps`` random batches, each cut to its longest sentence (as a collate pads)."""
    for _ in range(steps):
        rows = torch.randint(len(ids), (batch_size,), generator=generator)
        chunk = ids[rows]
        width = int((chunk != pad).sum(1).max())
        yield chunk[:, :width], labels[rows]


class BagClassifier(nn.Module):
    """Embedding, the mean over the sentence's real tokens (``mask_pad``) or the sum over
    every position (relying on a zero padding row), then a ReLU MLP."""

    def __init__(self, vocab, dim=32, padding_idx=0, mask_pad=True, hidden=64):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim, padding_idx=padding_idx)
        self.pad, self.mask_pad = padding_idx, mask_pad
        self.head = nn.Sequential(nn.Linear(dim, hidden), nn.ReLU(), nn.Linear(hidden, CLASSES))

    def forward(self, ids):
        e = self.emb(ids)
        if self.mask_pad:
            keep = (ids != self.pad).float().unsqueeze(-1)
            pooled = (e * keep).sum(1) / keep.sum(1).clamp(min=1)
        else:
            pooled = e.sum(1) / MAX_LEN
        return self.head(pooled)


@torch.no_grad()
def accuracy(model, ids, labels):
    """Held-out accuracy (the rows padded to MAX_LEN)."""
    was = model.training
    model.eval()
    right = (model(ids).argmax(-1) == labels).float().mean().item()
    model.train(was)
    return round(right, 3)

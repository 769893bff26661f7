"""A BIO tagger trained on sentences padded to a fixed length whose padded positions carry
tag 0, and whose loss averages over every position: the padding, two thirds of each batch
here, is trained on as if it were text. The loss of the real tokens is diluted by the
padded ones (plain SGD moves the real tags about three times slower), and the loss the run
reports is mostly the easy padding.

Reported: "Question: loss in padding sequence" -
https://github.com/kaiyinzhou/BERT-NER/issues/3 ("the sentences are padded with
max_sequence_length and labels in such padded part are set to 0. But when counting the
total loss ... both input and padded parts are included ... Should we mask the padded
part?"; the author: "you are right, its necessary to do masking, if not the total loss will
be influenced"). Here a GRU tagger reads the sonnets' verse lines character by character,
padded to 96 positions, and tags each character B-/I- of a capitalised or a lower-case
word, or O (spaces, punctuation): 1..5, 0 for the padding.

Measured (200 steps of SGD, 27 held-out lines, accuracy on the real characters): 0.973
with the bug, 0.988 fixed (twice the errors: the author's "influences are limited").
Fix: leave the padding out of the loss, ``F.cross_entropy(..., ignore_index=0)`` (or mask
the per-token loss and divide by the real token count).
"""
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import SONNETS

TITLE = "Question: loss in padding sequence"
LINK = "https://github.com/kaiyinzhou/BERT-NER/issues/3"
EXPECTED = ("PADDING_NOT_MASKED",)
STEPS = 200
MAX_LENGTH = 96
HELD_OUT = 27
TAGS = 6                    # 0 padding, 1 O, 2 B-CAP, 3 I-CAP, 4 B-LOW, 5 I-LOW


def tagged_lines(min_length=20):
    """The sonnets' verse lines as (lines, MAX_LENGTH) character ids (0 = padding) and
    BIO tags of their words (0 on the padding), and the vocabulary size."""
    with open(SONNETS, encoding="utf-8") as handle:
        lines = [line for line in handle.read().splitlines() if len(line) >= min_length]
    chars = sorted(set("".join(lines)))
    index = {c: i + 1 for i, c in enumerate(chars)}
    ids = torch.zeros(len(lines), MAX_LENGTH, dtype=torch.long)
    tags = torch.zeros(len(lines), MAX_LENGTH, dtype=torch.long)
    for row, line in enumerate(lines):
        line = line[:MAX_LENGTH]
        ids[row, :len(line)] = torch.tensor([index[c] for c in line])
        capital = False
        for k, c in enumerate(line):
            if not c.isalpha():
                tags[row, k] = 1
                continue
            if k == 0 or not line[k - 1].isalpha():
                capital = c.isupper()
                tags[row, k] = 2 if capital else 4
            else:
                tags[row, k] = 3 if capital else 5
    return ids, tags, len(chars) + 1


class Tagger(nn.Module):
    def __init__(self, vocab, dim=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.rnn = nn.GRU(dim, dim, batch_first=True, bidirectional=True)
        self.tag = nn.Linear(2 * dim, TAGS)

    def forward(self, ids):                           # (batch, time) -> (batch, time, tags)
        return self.tag(self.rnn(self.embed(ids))[0])


def line_batches(ids, tags, steps, batch_size=32):
    g = torch.Generator().manual_seed(torch.initial_seed() + 1)
    for _ in range(steps):
        rows = torch.randint(0, len(ids), (batch_size,), generator=g)
        yield ids[rows], tags[rows]


def real_accuracy(model, ids, tags):
    with torch.no_grad():
        best = model(ids).argmax(dim=2)
    real = tags != 0
    return float((best[real] == tags[real]).float().mean())


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    ids, tags, vocab = tagged_lines()
    model = Tagger(vocab)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    with nd.watch(model, optimizer, **watch) as mon:
        for batch, batch_tags in line_batches(ids[:-HELD_OUT], tags[:-HELD_OUT], steps):
            optimizer.zero_grad()
            scores = model(batch)
            if fixed:
                loss = F.cross_entropy(scores.transpose(1, 2), batch_tags, ignore_index=0)
            else:   # BUG: the padded positions' tag 0 is averaged in with the real ones
                loss = F.cross_entropy(scores.transpose(1, 2), batch_tags)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.accuracy = real_accuracy(model, ids[-HELD_OUT:], tags[-HELD_OUT:])
    return mon

"""A span-pointer entity tagger (a start head and an end head over the subword pieces, each
naming the entity type or "none") whose start and end labels are written at the entity's
WORD offsets into the PIECE sequence: ``start_ids[start] = label`` with ``start`` counted
in words. Once a word before the entity has split into several pieces, the labels sit
before the entity, on pieces of earlier words, and the gap grows along the sentence.
Nothing errors (word offsets are always inside the longer piece row), the loss falls, and
the tagger learns to fire at positions that carry no entity.

Reported: "代码似乎存在一些bug，span标签会错位" ("the code seems to have a bug, the span
labels get misaligned") - https://github.com/lonePatient/BERT-NER-Pytorch/issues/65 (the
span processor tokenises the joined text and then writes ``start_ids[start]`` and
``end_ids[end]`` at the annotation's word offsets; "7.7" is split into "7", ".", "7", so
the tokens grow "but start is still at the original position"; the reporter's fix maps
every word index to its first token index before writing the labels). Here synthetic
sentences of entity mentions (1-3 words of one of four types) among filler words, each
word split into 1-3 subword pieces of its own (benchmarks/real_bugs/_txt164.py's piece
table); an embedding and three width-3 convolutions over the pieces, a start and an end
head (5 classes each), cross-entropy, Adam. Fix: the labels written at each word's first
piece (the reporter's word-to-token map).

Measured (entity F1 - type, start word and end word exact - on 500 held-out sentences,
decoded as the repository does: each predicted start paired with the first predicted end
of its type at or after it; read at each word's first piece; 1,500 training sentences, 200
steps of 32): 0.000 with the bug, 0.961 fixed; seeds + 1000: 0.000 vs 0.985.
"""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._txt164 import piece_table, tokenise

TITLE = "代码似乎存在一些bug，span标签会错位"
LINK = "https://github.com/lonePatient/BERT-NER-Pytorch/issues/65"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 200
TYPES, PER_TYPE, FILLERS = 4, 10, 8     # word ids 1..48 as in _txt164: 4 x 10 typed, 8 fillers


def sentence(rng):
    """Word ids (1-based) and the mentions (type, first word, last word)."""
    words, mentions = [], []
    for _ in range(int(rng.integers(1, 4))):
        for _ in range(int(rng.integers(1, 4))):
            words.append(1 + TYPES * PER_TYPE + int(rng.integers(FILLERS)))
        kind, size = int(rng.integers(TYPES)), int(rng.integers(1, 4))
        mentions.append((kind, len(words), len(words) + size - 1))
        words.extend(1 + kind * PER_TYPE + int(w) for w in rng.integers(0, PER_TYPE, size))
    for _ in range(int(rng.integers(0, 3))):
        words.append(1 + TYPES * PER_TYPE + int(rng.integers(FILLERS)))
    return words, mentions


def encode(n, rng, table, fixed):
    """Piece ids (N, T), start and end labels (N, T), and per sentence the first-piece
    positions of its words and its gold mentions."""
    rows = []
    for _ in range(n):
        words, mentions = sentence(rng)
        pieces, word_index = tokenise(words, table)
        first = [word_index.index(w) for w in range(len(words))]
        rows.append((pieces, first, mentions))
    length = max(len(r[0]) for r in rows)
    ids = torch.zeros(n, length, dtype=torch.int64)
    starts = torch.zeros(n, length, dtype=torch.int64)
    ends = torch.zeros(n, length, dtype=torch.int64)
    for r, (pieces, first, mentions) in enumerate(rows):
        ids[r, :len(pieces)] = torch.tensor(pieces)
        for kind, start, end in mentions:
            if fixed:     # the word offsets mapped to their first piece
                starts[r, first[start]] = kind + 1
                ends[r, first[end]] = kind + 1
            else:         # BUG: word offsets written into the piece sequence
                starts[r, start] = kind + 1
                ends[r, end] = kind + 1
    return ids, starts, ends, [(first, mentions) for _, first, mentions in rows]


class SpanTagger(nn.Module):
    def __init__(self, pieces, width=32, hidden=64):
        super().__init__()
        self.embed = nn.Embedding(pieces, width, padding_idx=0)
        self.conv = nn.Sequential(nn.Conv1d(width, hidden, 3, padding=1), nn.ReLU(),
                                  nn.Conv1d(hidden, hidden, 3, padding=1), nn.ReLU(),
                                  nn.Conv1d(hidden, hidden, 3, padding=1), nn.ReLU())
        self.start = nn.Linear(hidden, TYPES + 1)
        self.end = nn.Linear(hidden, TYPES + 1)

    def forward(self, ids):
        states = self.conv(self.embed(ids).transpose(1, 2)).transpose(1, 2)
        return self.start(states), self.end(states)


def entity_f1(start_pred, end_pred, gold):
    found = correct = total = 0
    for row, (first, mentions) in enumerate(gold):
        s = [int(start_pred[row, p]) for p in first]      # read at each word's first piece
        e = [int(end_pred[row, p]) for p in first]
        predicted = set()
        for i, kind in enumerate(s):
            if kind:
                for j in range(i, len(e)):
                    if e[j] == kind:
                        predicted.add((kind - 1, i, j))
                        break
        truth = set(mentions)
        found += len(predicted)
        total += len(truth)
        correct += len(predicted & truth)
    precision, recall = correct / max(found, 1), correct / max(total, 1)
    return 2 * precision * recall / max(precision + recall, 1e-9)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    table, n_pieces = piece_table(rng)
    ids, starts, ends, _ = encode(1500, rng, table, fixed)
    test_ids, _, _, test_gold = encode(500, rng, table, True)
    model = SpanTagger(n_pieces)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            pick = torch.from_numpy(rng.integers(0, len(ids), 32))
            start_logits, end_logits = model(ids[pick])
            loss = (F.cross_entropy(start_logits.transpose(1, 2), starts[pick])
                    + F.cross_entropy(end_logits.transpose(1, 2), ends[pick])) / 2
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        start_logits, end_logits = model(test_ids)
    mon.held_out_entity_f1 = round(entity_f1(start_logits.argmax(-1), end_logits.argmax(-1),
                                             test_gold), 3)
    return mon

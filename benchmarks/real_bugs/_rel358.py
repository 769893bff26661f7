"""Synthetic entity-pair sentences for the relation-extraction cases of real-bug batch 358.

Token ids: 0 padding, 1-4 the entity markers <e1> </e1> <e2> </e2>, then entity words of
``TYPES`` types (``PER_TYPE`` each) and ``FILLERS`` filler words. A sentence holds a
subject mention and an object mention (1-3 words of one type each) and one or two
distractor mentions of other types, among fillers, in random order: which mentions are the
arguments is only known from the markers. The relation is a function of the subject's and
the object's types. Everything is drawn from the ``rng`` handed in (the benchmark's seed
shift moves it).
"""
import numpy as np
import torch
from torch import nn

PAD, E1, E1_END, E2, E2_END = 0, 1, 2, 3, 4
TYPES, PER_TYPE, FILLERS = 4, 8, 16
FIRST_WORD = 5
VOCAB = FIRST_WORD + TYPES * PER_TYPE + FILLERS
# relation of (subject type, object type): 8 relations over the 16 type pairs
RELATION = np.array([[0, 1, 2, 3],
                     [4, 5, 6, 7],
                     [1, 0, 3, 2],
                     [5, 4, 7, 6]])
RELATIONS = 8


def mention(rng, kind):
    size = int(rng.integers(1, 4))
    return list(FIRST_WORD + kind * PER_TYPE + rng.integers(0, PER_TYPE, size))


def sentence(rng, min_fill=6, max_fill=12):
    """(words, (subj_start, subj_end), (obj_start, obj_end), relation): spans inclusive,
    word positions of the unmarked sentence."""
    subj_type, obj_type = (int(t) for t in rng.integers(0, TYPES, 2))
    others = [t for t in range(TYPES) if t not in (subj_type, obj_type)] or [
        (subj_type + 1) % TYPES]
    pieces = [("s", mention(rng, subj_type)), ("o", mention(rng, obj_type))]
    for _ in range(int(rng.integers(1, 3))):
        pieces.append(("d", mention(rng, int(rng.choice(others)))))
    fill = int(rng.integers(min_fill, max_fill + 1))
    pieces += [("f", [FIRST_WORD + TYPES * PER_TYPE + int(rng.integers(FILLERS))])
               for _ in range(fill)]
    order = rng.permutation(len(pieces))
    words, spans = [], {}
    for index in order:
        tag, tokens = pieces[index]
        if tag in "so":
            spans[tag] = (len(words), len(words) + len(tokens) - 1)
        words.extend(int(t) for t in tokens)
    return words, spans["s"], spans["o"], int(RELATION[subj_type, obj_type])


def pad(rows):
    length = max(len(r) for r in rows)
    ids = torch.zeros(len(rows), length, dtype=torch.int64)
    for i, r in enumerate(rows):
        ids[i, :len(r)] = torch.tensor(r)
    return ids


class EntityStartEncoder(nn.Module):
    """Embedding + two width-3 convolutions (each position sees two words either side);
    the pair is read at its two start markers (<e1>, <e2>: the "entity start"
    representation of BERT_EM / R-BERT-style models)."""

    def __init__(self, width=32, hidden=64):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, width, padding_idx=PAD)
        self.conv = nn.Sequential(nn.Conv1d(width, hidden, 3, padding=1), nn.ReLU(),
                                  nn.Conv1d(hidden, hidden, 3, padding=1), nn.ReLU())
        self.head = nn.Sequential(nn.Linear(2 * hidden, 64), nn.ReLU(),
                                  nn.Linear(64, RELATIONS))

    def forward(self, ids):
        states = self.conv(self.embed(ids).transpose(1, 2)).transpose(1, 2)
        rows = torch.arange(len(ids))
        e1 = (ids == E1).float().argmax(1)
        e2 = (ids == E2).float().argmax(1)
        return self.head(torch.cat([states[rows, e1], states[rows, e2]], dim=1))

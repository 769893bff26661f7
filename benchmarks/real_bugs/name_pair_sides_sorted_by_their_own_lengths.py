"""A two-tower GRU that decides whether two surnames share a language of origin, whose
batch is sorted for ``pack_padded_sequence`` (``enforce_sorted=True``, the default) by the
FIRST name's length - labels sorted along, as a bucketing collate does - while the second
names are sorted again, by their own lengths, to be packed in turn, and never put back.
Each first name is compared with the second name of some other pair: the two towers'
states meet in the head at positions that belong to different samples. Nothing fails (the
batch sizes agree), the loss runs on at chance (ln 2) while the GRU and head keep
updating, and held-out pairs are judged no better than a coin.

Reported: "sorted utterance batches don't match each other" -
https://github.com/hsgodhia/hred/issues/5 ("in util.py, you did "sort" for u1_batch,
u2_batch, u3_batch. Will this lead to u1, u2 and u3 don't match each other?"; the same
trap described in pytorch/pytorch#4927: "the descendant order of A is not the order of B.
This will course some mismatches"). Here pairs of made-up surnames of six languages
(``_rnn_classifiers``; half the pairs share a language), batches of 32 pairs padded with
id 0, one embedding + GRU encoding both names (final state ``h_n``), a head on
``[a, b, |a - b|, a * b]``, Adam, 300 steps.

Fix: pack each side with ``enforce_sorted=False`` (PyTorch sorts inside and returns
``h_n`` in the batch's order), so both towers and the labels stay in one order.

Measured (held-out pair accuracy over 2,000 pairs): 0.49 with the bug, 0.81 fixed;
seeds + 1000: 0.51 vs 0.82.
"""
import numpy as np
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence

import nndebug as nd
from benchmarks.real_bugs._rnn_classifiers import VOCAB, pad, random_batches, surnames

TITLE = "sorted utterance batches don't match each other"
LINK = "https://github.com/hsgodhia/hred/issues/5"
EXPECTED = ("BATCH_MIXING",)
STEPS = 300


def name_pairs(count, seed):
    """(first names, second names, same-language labels): half the pairs share a language."""
    names, languages = surnames(4 * count, seed=seed)
    rng = np.random.default_rng(seed + 7)
    by_language = [np.flatnonzero(languages.numpy() == k) for k in range(int(languages.max()) + 1)]
    first, second, same = [], [], []
    for row in range(count):
        a = rng.integers(len(names))
        language = int(languages[a])
        if rng.random() < 0.5:
            b = rng.choice(by_language[language])
        else:
            other = (language + rng.integers(1, len(by_language))) % len(by_language)
            b = rng.choice(by_language[other])
        first.append(names[a])
        second.append(names[b])
        same.append(int(languages[b]) == language)
    return first, second, torch.tensor(same).long()


class PairEncoder(nn.Module):
    def __init__(self, dim=32, hidden=64):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, dim, padding_idx=0)
        self.gru = nn.GRU(dim, hidden, batch_first=True)
        self.head = nn.Sequential(nn.Linear(4 * hidden, hidden), nn.ReLU(),
                                  nn.Linear(hidden, 2))

    def encode(self, names, sort):
        ids, lengths = pad(names)
        order = torch.arange(len(names))
        if sort:                                  # what enforce_sorted=True asks for
            lengths, order = lengths.sort(descending=True)
            ids = ids[order]
        packed = pack_padded_sequence(self.embedding(ids), lengths, batch_first=True,
                                      enforce_sorted=sort)
        _, h_n = self.gru(packed)
        return h_n[-1], order

    def forward(self, first, second, fixed):
        a, order = self.encode(first, sort=not fixed)
        b, _ = self.encode(second, sort=not fixed)   # BUG: sorted by its own lengths
        logits = self.head(torch.cat([a, b, (a - b).abs(), a * b], dim=1))
        return logits, order


@torch.no_grad()
def pair_accuracy(model, first, second, same, fixed, batch_size=100):
    correct = 0
    for start in range(0, len(first), batch_size):
        rows = slice(start, start + batch_size)
        logits, order = model(first[rows], second[rows], fixed)
        correct += (logits.argmax(1) == same[rows][order]).sum().item()
    return correct / len(first)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    first, second, same = name_pairs(6000, seed=0)
    held = name_pairs(2000, seed=1)
    model = PairEncoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in random_batches(len(first), steps):
            optimizer.zero_grad()
            logits, order = model([first[r] for r in rows], [second[r] for r in rows], fixed)
            labels = same[rows][order]            # the batch follows the first names' sort
            loss = loss_fn(logits, labels)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    mon.held_out_accuracy = pair_accuracy(model, *held, fixed)
    return mon

"""A separation data loader that reads the mixtures, the first speakers and the second
speakers from three separate file lists and pairs them by sorting each list by utterance
length. Sorting only puts equal lengths next to each other; among utterances of one length
each list keeps the order its directory listing gave it, and three directories list the
same names in three different orders. With fixed-length training segments every length
ties, so every mixture is paired with two other mixtures' speakers. The PIT loss still
falls a little (the model learns the voices' general shape), nothing errors, and the model
separates nothing.

Reported: "Minor mistake?" - https://github.com/kaituoxu/Conv-TasNet/issues/15 ("when you
are loading the data, you just sort according to the data length. And it seems that some
audios in wsj_0 have the exact same length and it makes the mix/s1/s2 not matched"; the
maintainer asked for a fix: order the three lists by the same key, the utterance's name
breaking length ties). Here 1,024 training utterances of two synthetic voices
(benchmarks/real_bugs/_separation.py) cut to 512-sample segments, each list in its own
listing order, a two-mask TasNet, utterance-level PIT on SI-SNR, Adam. Fix: sort each list
by (length, name).

Measured (500 steps, batch 16, 256 held-out mixtures paired correctly; held-out SI-SNR
improvement over the mixture in dB with PIT): seed 0, -19.3 dB for the bug against 4.0 dB
for the fixed twin; seeds shifted by 1000, -21.0 against 3.7. A rule could see it in the
batches themselves: in a separation batch the mixture is the sum of its sources, and here
it is not (the residual is as large as the mixture).
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._separation import LENGTH, TasNet, pit_si_snr, si_snr, voices

TITLE = "Minor mistake?"
LINK = "https://github.com/kaituoxu/Conv-TasNet/issues/15"
EXPECTED = ("TARGETS_UNRELATED_TO_INPUTS", "LABELS_MISALIGNED")
STEPS = 500
TRAIN, BATCH, HELD_OUT = 1024, 16, 256


def file_lists(n, rng):
    """Three lists of (name, length, samples) - mix, s1, s2 - each in its own order, as
    three directories list the same file names."""
    s1, s2 = voices(n, rng), voices(n, rng)
    names = [f"utt{i:05d}" for i in range(n)]
    lists = []
    for signals in (s1 + s2, s1, s2):
        order = rng.permutation(n)
        lists.append([(names[i], LENGTH, signals[i]) for i in order])
    return lists


def paired(lists, fixed):
    if fixed:
        key = lambda item: (item[1], item[0])   # length, ties broken by the name
    else:
        key = lambda item: item[1]              # BUG: equal lengths keep the listing order
    mix, s1, s2 = (sorted(items, key=key) for items in lists)
    mixture = torch.stack([item[2] for item in mix])
    sources = torch.stack([torch.stack([a[2] for a in s1]), torch.stack([b[2] for b in s2])], 1)
    return mixture, sources


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    mixture, sources = paired(file_lists(TRAIN, rng), fixed)
    held_rng = np.random.default_rng(1)
    held_sources = torch.stack([voices(HELD_OUT, held_rng), voices(HELD_OUT, held_rng)], 1)
    held_mix = held_sources.sum(1)
    model = TasNet(sources=2)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(TRAIN, steps, BATCH):
            best, _ = pit_si_snr(model(mixture[index]), sources[index])
            loss = -best.mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        base = (si_snr(held_mix, held_sources[:, 0]) + si_snr(held_mix, held_sources[:, 1])) / 2
        best, _ = pit_si_snr(model(held_mix), held_sources)
        mon.held_out_si_snri = (best - base).mean().item()
    return mon

"""A pure-Python skip-gram trainer whose window loop tests ``if pos2 == pos`` where it
means ``pos2 != pos``: of all the words in the window around a word, the ONLY one it is
trained against is the word itself. Every training pair is (w, w); the window, the
co-occurrences - everything word2vec learns from - never reach the model. It trains at
full speed, the loss falls (predicting a word from itself is easy), and the vectors carry
no meaning.

Reported: "small bug(?) in python (non-cython) part of word2vec" -
https://github.com/piskvorky/gensim/issues/401 (in ``train_sentence_sg``, ``# don't train
on OOV words and on the `word` itself`` followed by ``if (pos2 == pos):
train_sg_pair(...)``: "If we don't want to train the word itself, shouldn't this be not
equal to (!=) instead of equal to (==)?"; the maintainers: fixed by the pending PR #393;
"left uncaught because most people use the cython version"). Here a skip-gram with
negative sampling written the same way (the window loop per sentence, 5 noise words per
pair from the unigram^0.75 distribution, plain SGD on the batch-mean loss at 5.0 - gensim's
per-pair 0.025 scaled for the mean, as batch 123's word2vec case) on the batch-123 corpus
(benchmarks/real_bugs/_word_embeddings.py: 3000 sentences, window 2), batches of 256 pairs
drawn from the pairs the loop produced. Fix: ``pos2 != pos``.

Measured (neighbour precision of the word vectors: the share of each content word's 5
nearest words from its own topic, chance 0.12): seed 0: 0.12 (chance) with the bug, 1.00
fixed; seeds shifted by 1000: 0.11 against 0.99.
"""
import numpy as np
import torch

import nndebug as nd
from benchmarks.real_bugs._w2v import (draw_noise, neighbour_precision, noise_distribution,
                                       sentences)
from benchmarks.real_bugs._word_embeddings import SkipGram, sgns_loss

TITLE = "small bug(?) in python (non-cython) part of word2vec"
LINK = "https://github.com/piskvorky/gensim/issues/401"
EXPECTED = ("TARGETS_IN_INPUTS",)
STEPS = 300
SENTENCES, WINDOW, NEG, BATCH, LR = 3000, 2, 5, 256, 5.0


def sentence_pairs(sentence, fixed):
    """The (word, context word) pairs the trainer's window loop visits in one sentence."""
    pairs = []
    for pos, word in enumerate(sentence):
        start = max(0, pos - WINDOW)
        for pos2, word2 in enumerate(sentence[start:pos + WINDOW + 1], start):
            if (pos2 != pos) if fixed else (pos2 == pos):   # BUG: == trains word on itself
                pairs.append((word, word2))
    return pairs


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    ids, _ = sentences(SENTENCES, rng)
    pairs = torch.tensor([p for s in ids.tolist() for p in sentence_pairs(s, fixed)])
    noise = noise_distribution(ids)
    model = SkipGram()
    optimizer = torch.optim.SGD(model.parameters(), lr=LR)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            pick = pairs[torch.randint(0, len(pairs), (BATCH,))]
            optimizer.zero_grad()
            positive, negative = model(pick[:, 0], pick[:, 1], draw_noise(noise, BATCH, NEG))
            loss = sgns_loss(positive, negative)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.neighbour_precision = neighbour_precision(model.centre.weight)
    return mon

"""Skip-gram pairs generated with frequent-word subsampling whose keep-probability table
is read at the word's POSITION in the sequence instead of at its frequency rank: ``if
sampling_table[i] < random.random(): continue`` with ``i`` the index into the sentence,
where it should be ``sampling_table[wi]``, the word id (ranked by frequency, 1 the
commonest). The first positions of every sentence are treated as the commonest words of
the language and dropped almost always, whatever word stands there; the commonest words
themselves are never thinned out. Training runs on a small, position-filtered share of the
pairs - each epoch is a quarter of the batches it should be, most of them about the
commonest words - and the word vectors come out barely trained; nothing errors and the
loss looks ordinary.

Reported: "Fix sampling table lookup in skipgrams" -
https://github.com/keras-team/keras/pull/154 (``sampling_table`` "should be looked up with
the index from the vocabulary, and not with the positional index from the sequence"; the
maintainer: "I wonder if that might be the explanation for some of the strange results we
had with word embeddings"; merged). Here Keras' ``skipgrams`` is rewritten in a few lines
(window 2, one uniformly drawn negative word per positive pair, labels 1/0) with Keras'
``make_sampling_table`` (Zipf's law on the frequency rank; sampling factor 1e-3 for this
161-word vocabulary, where Keras' 1e-5 is meant for 10^5 words), the ids ranked by
frequency as Keras' Tokenizer ranks them, and the model of the Keras word2vec examples: two
embedding tables, a dot product, binary cross-entropy on the logit, Adam at 0.01. Pairs are
regenerated every epoch, 4 epochs over 600 sentences of the batch-123 corpus
(benchmarks/real_bugs/_word_embeddings.py), batches of 256. Fix: read the table at the
word id.

Measured (neighbour precision of the word vectors: the share of each content word's 5
nearest words from its own topic, chance 0.12): seed 0: 0.13 with the bug (60 optimizer
steps in the 4 epochs), 0.99 fixed (245 steps); seeds shifted by 1000: 0.15 (61 steps)
against 0.98 (242 steps). Not only the lost steps: given 16 epochs, as many steps as the
fixed twin's 4, the bug run still reaches only 0.78.
"""
import numpy as np
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._word_embeddings import (VOCAB, SkipGram, neighbour_precision,
                                                   sentences)

TITLE = "Fix sampling table lookup in skipgrams"
LINK = "https://github.com/keras-team/keras/pull/154"
EXPECTED = ("SUBSAMPLING_BY_POSITION",)
STEPS = 400
EPOCHS, SENTENCES, WINDOW, BATCH = 4, 600, 2, 256
SAMPLING_FACTOR = 1e-3


def make_sampling_table(size, sampling_factor=SAMPLING_FACTOR):
    """Keras' table: the keep-probability of the word of frequency rank i (Zipf's law)."""
    gamma = 0.577
    rank = np.arange(size, dtype=np.float64)
    rank[0] = 1
    inv_fq = rank * (np.log(rank) + gamma) + 0.5 - 1.0 / (12.0 * rank)
    f = sampling_factor * inv_fq
    return np.minimum(1.0, f / np.sqrt(f))


def skipgrams(sequence, sampling_table, fixed, rng):
    """(pairs, labels) of one sequence: each kept word with each word within WINDOW (label
    1) and as many (word, random word) pairs (label 0)."""
    couples = []
    for i, wi in enumerate(sequence):
        keep = sampling_table[wi] if fixed else sampling_table[i]  # BUG: the position
        if keep < rng.random():
            continue
        for j in range(max(0, i - WINDOW), min(len(sequence), i + WINDOW + 1)):
            if j != i:
                couples.append((wi, sequence[j]))
    negatives = [(wi, int(rng.integers(1, VOCAB))) for wi, _ in couples]
    labels = [1.0] * len(couples) + [0.0] * len(negatives)
    order = rng.permutation(len(labels))
    pairs = np.array(couples + negatives, dtype=np.int64).reshape(-1, 2)[order]
    return pairs, np.array(labels, dtype=np.float32)[order]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    ids, _ = sentences(SENTENCES, rng)
    counts = np.bincount(ids.reshape(-1).numpy(), minlength=VOCAB)
    ranked = np.argsort(-counts, kind="stable")        # the Tokenizer: 1 = the commonest
    to_rank = np.zeros(VOCAB, dtype=np.int64)
    to_rank[ranked[counts[ranked] > 0]] = np.arange(1, (counts > 0).sum() + 1)
    sequences = to_rank[ids.numpy()]
    sampling_table = make_sampling_table(VOCAB)
    model = SkipGram()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    done = 0
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(EPOCHS):
            made = [skipgrams(s.tolist(), sampling_table, fixed, rng) for s in sequences]
            pairs = torch.from_numpy(np.concatenate([p for p, _ in made]))
            labels = torch.from_numpy(np.concatenate([y for _, y in made]))
            for start in range(0, len(pairs) - BATCH + 1, BATCH):
                if done == steps:
                    break
                batch, target = pairs[start:start + BATCH], labels[start:start + BATCH]
                optimizer.zero_grad()
                logit = (model.centre(batch[:, 0]) * model.context(batch[:, 1])).sum(1)
                loss = F.binary_cross_entropy_with_logits(logit, target)
                loss.backward()
                optimizer.step()
                mon.step(loss)
                done += 1
    # the vectors back in the corpus' id order, for the topic-based measure
    vectors = model.centre.weight.detach()[torch.from_numpy(to_rank)]
    mon.neighbour_precision = neighbour_precision(vectors)
    mon.optimizer_steps = done
    return mon

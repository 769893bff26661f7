"""Texts are cut to a fixed length with Keras-style ``pad_sequences`` left at its defaults,
which truncate from the front (``truncating='pre'``): for every text longer than the limit
the opening words, where a news text states its topic, are thrown away and the model
trains on the tail alone.

Reported: "关于Padding部分问题" (about the padding) -
https://github.com/gaussic/text-classification-cnn-rnn/issues/116 (the reporter: by default
``pad_sequences`` pads and cuts at the front of the sequence, "in topic classification,
doesn't this lose the useful information at the beginning of the text?"; the maintainer:
"I just used the default padding"). Here a bag-of-words topic classifier on 40-word texts
whose topic words sit in their first words, cut to 20 ids. Fix: ``truncating='post'``
(keep the beginning).

Why watch misses it: what reaches the model is ordinary text (the tail of each document, no
padding, nothing repeated); what was thrown away is not in the run, and the learning it
costs looks like a hard task: a loss that falls slowly and ends high.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs.vocabulary_lowercased_inputs_not import (PAD, UNK, BagOfWords,
                                                                   sentences)

TITLE = "关于Padding部分问题"
LINK = "https://github.com/gaussic/text-classification-cnn-rnn/issues/116"
EXPECTED = ("TRUNCATION_DROPS_SIGNAL",)
STEPS = 200
MAX_LENGTH = 20
HEADLINE = 6           # the topic words are among a text's first words
BODY = 34              # words after the headline, no topic words among them


def pad_sequences(sequences, maxlen, truncating="pre"):
    """Pre-padding and front-or-back truncation, as the Keras helper does by default."""
    out = torch.full((len(sequences), maxlen), PAD, dtype=torch.int64)
    for row, seq in enumerate(sequences):
        seq = seq[-maxlen:] if truncating == "pre" else seq[:maxlen]
        out[row, maxlen - len(seq):] = torch.tensor(seq)
    return out


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    heads, labels = sentences(2000, rng, title_cased=0.0, length=HEADLINE)
    bodies, _ = sentences(2000, rng, title_cased=0.0, length=BODY)
    # a body's three "topic" words come from a random class: no hint of the label
    texts = [h + b for h, b in zip(heads, bodies)]
    vocabulary = {w: i + 2 for i, w in enumerate(sorted({w for t in texts for w in t}))}
    sequences = [[vocabulary.get(w, UNK) for w in text] for text in texts]
    # BUG (unfixed): the default truncating='pre' keeps the last MAX_LENGTH ids
    ids = pad_sequences(sequences, MAX_LENGTH, truncating="post" if fixed else "pre")
    model = BagOfWords(len(vocabulary) + 2)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for step in range(steps):
            index = torch.from_numpy(rng.integers(len(ids), size=32))
            optimizer.zero_grad()
            loss = F.cross_entropy(model(ids[index]), labels[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon

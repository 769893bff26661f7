"""The word vocabulary is built from the lower-cased corpus, but the training sentences are
looked up as written: every capitalised word misses the vocabulary and becomes ``<unk>``, so
most of the words that carry the label reach the model as one shared id.

Reported: "Unable to recreate paper results" -
https://github.com/freesunshine0316/neural-graph-to-seq-mp/issues/17 (the maintainer: "The
vocabulary-extracting scripts use lower cases, so you have to make the sentence part of
your data be lower cases too ... Because of the mismatch between your vocabulary and the
data, there will be lots of UNK that shouldn't be."). Here a bag-of-words topic classifier
(embedding, mean pooling, linear head) on headline-style sentences made of the sonnets'
words, most of them written Title Case; the vocabulary is the lower-cased words. Fix:
lower-case the sentences before looking them up, as the vocabulary was built.
"""
import re

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import SONNETS

TITLE = "Unable to recreate paper results"
LINK = "https://github.com/freesunshine0316/neural-graph-to-seq-mp/issues/17"
EXPECTED = ("UNKNOWN_ID_DOMINATES_INPUTS",)
STEPS = 200
CLASSES = 4
KEYWORDS = 12          # topic words per class
SENTENCE = 12          # words per sentence, 3 of them topic words
TITLE_CASED = 0.7      # share of words written capitalised (headline style)
PAD, UNK = 0, 1


def sentences(count, rng, title_cased=TITLE_CASED, length=SENTENCE):
    """Sentences (lists of words, as written) and their topic labels (other text cases of
    this batch reuse it)."""
    with open(SONNETS, encoding="utf-8") as handle:
        words = sorted(set(re.findall(r"[a-z]+", handle.read().lower())))
    words = [words[i] for i in rng.permutation(len(words))]
    topics = [words[c * KEYWORDS:(c + 1) * KEYWORDS] for c in range(CLASSES)]
    filler = words[CLASSES * KEYWORDS:]
    texts, labels = [], []
    for _ in range(count):
        label = int(rng.integers(CLASSES))
        chosen = [topics[label][i] for i in rng.integers(KEYWORDS, size=3)]
        chosen += [filler[i] for i in rng.integers(len(filler), size=length - 3)]
        chosen = [chosen[i] for i in rng.permutation(length)]
        texts.append([w.title() if rng.random() < title_cased else w for w in chosen])
        labels.append(label)
    return texts, torch.tensor(labels)


class BagOfWords(nn.Module):
    def __init__(self, vocabulary):
        super().__init__()
        self.embed = nn.Embedding(vocabulary, 32, padding_idx=PAD)
        self.head = nn.Linear(32, CLASSES)

    def forward(self, ids):
        return self.head(self.embed(ids).mean(1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    texts, labels = sentences(2000, rng)
    lowered = sorted({w.lower() for text in texts for w in text})
    vocabulary = {w: i + 2 for i, w in enumerate(lowered)}      # 0 padding, 1 <unk>
    if fixed:
        texts = [[w.lower() for w in text] for text in texts]
    # BUG (unfixed): "Love" is looked up as written and misses the lower-cased vocabulary
    ids = torch.tensor([[vocabulary.get(w, UNK) for w in text] for text in texts])
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

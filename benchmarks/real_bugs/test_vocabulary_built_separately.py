"""The word-to-id vocabulary is built twice: once from the training texts and again from
the validation texts. Both are ordered by word frequency, so the same word gets another id
in each split: the validation sentences reach the model as other words, and the validation
loss says nothing about what it learned.

Reported: "The reason for low performance, vocabs in train_dataset and test_dataset are not
the same" - https://github.com/minqukanq/hierarchical-multi-label-text-classification/issues/6
("the train_dataset and the test_dataset use two different vocab_to_int. I fix this bug and
then the performance grows up"). Here a bag-of-words topic classifier on sentences made of
the sonnets' words, validated every 20 steps on a held-out split. Fix: build the vocabulary
once, from the training texts, and look the validation texts up in it.
"""
from collections import Counter

import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs.vocabulary_lowercased_inputs_not import BagOfWords, UNK, sentences

TITLE = ("The reason for low performance, vocabs in train_dataset and test_dataset are not "
         "the same")
LINK = "https://github.com/minqukanq/hierarchical-multi-label-text-classification/issues/6"
EXPECTED = ("VALIDATION_NEVER_IMPROVED",)
STEPS = 200
EVERY = 20


def build_vocabulary(texts):
    """word -> id, most frequent first (ids from 2: 0 padding, 1 <unk>)."""
    counts = Counter(w for text in texts for w in text)
    return {w: i + 2 for i, (w, _) in enumerate(counts.most_common())}


def encode(texts, vocabulary):
    return torch.tensor([[vocabulary.get(w, UNK) for w in text] for text in texts])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    texts, labels = sentences(2400, rng, title_cased=0.0)
    train_texts, val_texts = texts[:2000], texts[2000:]
    y_train, y_val = labels[:2000], labels[2000:]
    vocabulary = build_vocabulary(train_texts)
    x_train = encode(train_texts, vocabulary)
    # BUG (unfixed): the validation split gets its own frequency-ordered vocabulary
    x_val = encode(val_texts, vocabulary if fixed else build_vocabulary(val_texts))
    model = BagOfWords(len(vocabulary) + 2 + 200)     # room for ids the other vocabulary uses
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for done in range(1, steps + 1):
            index = torch.from_numpy(rng.integers(len(x_train), size=32))
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x_train[index]), y_train[index])
            loss.backward()
            optimizer.step()
            val_loss = None
            if done % EVERY == 0:
                model.eval()
                with torch.no_grad():
                    val_loss = F.cross_entropy(model(x_val), y_val)
                model.train()
            mon.step(loss, val_loss=val_loss)
    return mon

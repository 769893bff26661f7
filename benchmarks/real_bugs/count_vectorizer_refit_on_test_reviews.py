"""A bag-of-words classifier whose test features come from ``CountVectorizer.fit_transform``
called a second time, on the test texts: with ``max_features`` both matrices have the same
width, so nothing fails, but the refit learns the test set's own most frequent words in
its own (alphabetical) column order, and each test column stands for another word than
the one the network learned for it.

Reported: "What is the difference between fit_transform and transform in sklearn
countvectorizer?" - https://devpeace.com/python/38692520/what-is-the-difference-between-fit-transform-and-transform-in-sklearn-countvecto
(Stack Overflow 38692520, from Kaggle's "Bag of Words Meets Bags of Popcorn": "why not use
fit_transform on the test list too? ... Why not make test features array using the most
frequent words in the test itself?"; the answer: the test features must be "calculated in
the same way using the same vocabulary", otherwise they "reflect a vocabulary that is
separate from" the one the model was trained on). Here 4-topic documents as text,
CountVectorizer(max_features=300), a 300-64-4 MLP on log counts, Adam lr 3e-3, batches
of 32, the test split scored every 20 steps. Fix: ``vectorizer.transform(test_texts)``.

Measured (held-out accuracy on 800 documents, bug vs fixed): seed 0: 0.723 vs 0.978;
seeds + 1000: 0.595 vs 0.967.
"""
import numpy as np
import torch
from sklearn.feature_extraction.text import CountVectorizer
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._bow import CLASSES, accuracy, documents, texts

TITLE = ("What is the difference between fit_transform and transform in sklearn "
         "countvectorizer?")
LINK = ("https://devpeace.com/python/38692520/what-is-the-difference-between-fit-transform-"
        "and-transform-in-sklearn-countvecto")
EXPECTED = ("VALIDATION_COLUMNS_REORDERED",)
STEPS = 200
EVERY = 20
FEATURES = 300


def features(matrix):
    return torch.from_numpy(np.log1p(matrix.toarray()).astype(np.float32))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    docs, y = documents(2800, topical=0.2)
    words = texts(docs)
    vectorizer = CountVectorizer(max_features=FEATURES)
    x_train = features(vectorizer.fit_transform(words[:2000]))
    if fixed:
        x_test = features(vectorizer.transform(words[2000:]))
    else:                                    # BUG: a second vocabulary, fitted on the test texts
        x_test = features(vectorizer.fit_transform(words[2000:]))
    y_train, y_test = y[:2000], y[2000:]
    model = nn.Sequential(nn.Linear(FEATURES, 64), nn.ReLU(), nn.Linear(64, CLASSES))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for done in range(1, steps + 1):
            index = torch.randint(0, len(x_train), (32,))
            optimizer.zero_grad()
            loss = loss_fn(model(x_train[index]), y_train[index])
            loss.backward()
            optimizer.step()
            val_loss = None
            if done % EVERY == 0:
                with torch.no_grad():
                    val_loss = loss_fn(model(x_test), y_test)
            mon.step(loss, val_loss=val_loss)
        with torch.no_grad():
            mon.held_out_accuracy = accuracy(model(x_test), y_test)
    return mon

"""The word vocabulary of a bag-of-embeddings classifier is counted by iterating over each
training text, a string, so it holds characters ("w", "1", "7", ...), not words. The
texts are then looked up word by word (``text.split()``), and no word is in that
vocabulary: every word of every document becomes <unk>, each document is a bag of one
repeated id, and the classifier can only learn the class frequencies.

Reported: "What does Keras Tokenizer method exactly do?" -
https://foroayuda.es/que-hace-exactamente-el-metodo-keras-tokenizer (Stack Overflow's
"What does Keras Tokenizer method exactly do?"; an answer's first example fits the
tokenizer on one string instead of a list of texts, ``t.fit_on_texts("The earth is an
awesome place live")``, and gets a vocabulary of letters, word_index {'e': 1, 'a': 2,
't': 3, ...}, with empty sequences for what it never saw). Here the same slip in a
hand-written vocabulary (``for token in text`` over a string), 4-topic documents as text,
EmbeddingBag(vocabulary, 16, mean) with offsets, a linear layer, Adam lr 5e-3, batches
of 32. Fix: count ``text.split()``, the words.

Measured (held-out accuracy on 800 documents, bug vs fixed): seed 0: 0.233 vs 0.957;
seeds + 1000: 0.254 vs 0.952.
"""
from collections import Counter

import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._bow import BagClassifier, accuracy, documents, flat, texts

TITLE = "What does Keras Tokenizer method exactly do?"
LINK = "https://foroayuda.es/que-hace-exactamente-el-metodo-keras-tokenizer"
EXPECTED = ("UNKNOWN_ID_DOMINATES_INPUTS",)
STEPS = 300
PAD, UNK = 0, 1


def build_vocabulary(train_texts, fixed):
    if fixed:
        counts = Counter(word for text in train_texts for word in text.split())
    else:                                    # BUG: iterates the characters of each string
        counts = Counter(token for text in train_texts for token in text)
    return {token: i + 2 for i, (token, _) in enumerate(counts.most_common())}


def encode(text_list, vocabulary):
    return [torch.tensor([vocabulary.get(w, UNK) for w in text.split()]) for text in text_list]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    docs, y = documents(2800, topical=0.2)
    words = texts(docs)
    vocabulary = build_vocabulary(words[:2000], fixed)
    train, test = encode(words[:2000], vocabulary), encode(words[2000:], vocabulary)
    model = BagClassifier(vocab=len(vocabulary) + 2)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            index = torch.randint(0, len(train), (32,)).tolist()
            text, offsets = flat([train[i] for i in index])
            optimizer.zero_grad()
            loss = loss_fn(model(text, offsets), y[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
        with torch.no_grad():
            text, offsets = flat(test)
            mon.held_out_accuracy = accuracy(model(text, offsets), y[2000:])
    return mon

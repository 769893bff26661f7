"""The embedding weights are built by looping over the inverse vocabulary and taking each
word's pretrained vector if the vector file has it, else a random draw - but the inverse
vocabulary is a dict {id: word}, and looping over a dict yields its keys: the integer ids.
No id is a word of the vector file, so every row is the random draw and not one pretrained
vector reaches the model. It trains anyway (the rows are fine-tuned on the words it sees);
the words it never saw - the reason to load the vectors - stay random, and held-out
sentences built on them are guessed.

Reported: "About embedding_weights" -
https://github.com/alexander-rakhlin/CNN-for-Sentence-Classification-in-Keras/issues/22
(the weights are built ``for w in vocabulary_inv`` while "vocabulary_inv is a dictionary
object {int:str}", so "w is an index of word" and the random branch "seems been executed in
every loop"). Here the topic corpus of ``_hand_loaded_vectors``, a vocabulary over its
sentences (0 padding), the rows built from the GloVe-like vector file with U(-0.25, 0.25)
for missing words, the embedding fine-tuned (the repository's non-static model), mean
pooling into a small MLP head, Adam, 200 steps of 32 sentences.

Fix: loop over the words in id order (``vocabulary_inv[i] for i in range(len(...))``).

Measured (held-out accuracy, 1000 sentences): 0.810 with the bug, 0.999 fixed; seeds + 1000:
0.801 vs 1.000.
"""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._hand_loaded_vectors import (DIM, STEPS, BagOfVectors, corpus,
                                                       train)

TITLE = "About embedding_weights"
LINK = "https://github.com/alexander-rakhlin/CNN-for-Sentence-Classification-in-Keras/issues/22"
EXPECTED = ("PRETRAINED_WEIGHTS_NOT_LOADED",)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    train_texts, train_labels, held_texts, held_labels, vector_file = corpus(rng)
    vocabulary = {"<PAD/>": 0}
    for text in train_texts + held_texts:
        for word in text:
            vocabulary.setdefault(word, len(vocabulary))
    vocabulary_inv = {i: w for w, i in vocabulary.items()}
    vectors = dict(vector_file)
    keys = [vocabulary_inv[i] for i in range(len(vocabulary_inv))] if fixed else \
        vocabulary_inv                          # BUG (unfixed): iterates the integer ids
    weights = np.array([vectors[w] if w in vectors else rng.uniform(-0.25, 0.25, DIM)
                        for w in keys], dtype=np.float32)
    embedding = nn.Embedding(len(vocabulary), DIM)
    embedding.weight.data.copy_(torch.from_numpy(weights))
    model = BagOfVectors(embedding)
    ids = torch.tensor([[vocabulary[w] for w in t] for t in train_texts])
    held_ids = torch.tensor([[vocabulary[w] for w in t] for t in held_texts])
    lengths = torch.full((len(ids),), ids.shape[1])
    held = held_ids, torch.full((len(held_ids),), held_ids.shape[1]), held_labels
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train(model, optimizer, ids, lengths, train_labels, held, steps, rng, **watch)

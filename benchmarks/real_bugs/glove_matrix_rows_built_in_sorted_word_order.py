"""The embedding matrix is filled by a helper that writes the i-th vector of the word list
it is given at row i, and it is given the vocabulary's words sorted alphabetically, while
the vocabulary numbered them in the order it met them in the data. Row i then holds the
vector of another word than id i: every word reads some other word's pretrained vector.
Training re-learns the rows of the words it sees; the words it never saw - the reason to
load pretrained vectors - keep a stranger's vector, and held-out sentences built on them
are guessed.

Reported: "make_embedding_matrix assumes that the words are fed in the same order as the
vocab" - https://github.com/delip/PyTorchNLPBook/issues/22 (to get each word's pretrained
vector, "the word list should be fed in the same order as in the vocabulary"). Here the topic corpus of
``_hand_loaded_vectors``, a vocabulary built over its sentences in order of appearance
(0 mask, 1 <unk>), the matrix built from the GloVe-like vector file (words it lacks drawn
at random), passed as the embedding's initial weight and fine-tuned as in the book,
mean-pooled into a small MLP head, Adam, 200 steps of 32 sentences.

Fix: pass the words in the vocabulary's own id order (or look each row up by
``token_to_idx``), so row i holds the vector of the word with id i.

Measured (held-out accuracy, 1000 sentences): 0.602 with the bug, 0.999 fixed; seeds + 1000:
0.665 vs 1.000.
"""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._hand_loaded_vectors import (DIM, STEPS, BagOfVectors, corpus,
                                                       train)

TITLE = "make_embedding_matrix assumes that the words are fed in the same order as the vocab"
LINK = "https://github.com/delip/PyTorchNLPBook/issues/22"
EXPECTED = ("EMBEDDING_ROWS_MISALIGNED_WITH_IDS",)
MASK, UNK = "<MASK>", "<UNK>"


def make_embedding_matrix(vectors, words):
    """Row i: the pretrained vector of ``words[i]``, or a random draw where there is none."""
    matrix = torch.empty(len(words), DIM)
    nn.init.xavier_uniform_(matrix)
    for i, word in enumerate(words):
        if word in vectors:
            matrix[i] = torch.from_numpy(vectors[word])
    return matrix


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    train_texts, train_labels, held_texts, held_labels, vector_file = corpus(rng)
    token_to_idx = {MASK: 0, UNK: 1}
    for text in train_texts + held_texts:
        for word in text:
            token_to_idx.setdefault(word, len(token_to_idx))
    vectors = dict(vector_file)
    if fixed:
        words = list(token_to_idx)
    else:
        words = sorted(token_to_idx)            # BUG: not the order of the ids
    matrix = make_embedding_matrix(vectors, words)
    ids = torch.tensor([[token_to_idx[w] for w in t] for t in train_texts])
    held_ids = torch.tensor([[token_to_idx[w] for w in t] for t in held_texts])
    lengths = torch.full((len(ids),), ids.shape[1])
    held = held_ids, torch.full((len(held_ids),), held_ids.shape[1]), held_labels
    model = BagOfVectors(nn.Embedding(len(words), DIM, padding_idx=0, _weight=matrix))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train(model, optimizer, ids, lengths, train_labels, held, steps, rng, **watch)

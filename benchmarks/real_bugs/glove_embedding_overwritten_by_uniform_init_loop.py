"""The pretrained word vectors are put into the embedding and frozen
(``requires_grad = False``), and then the script initialises "all the weights" with a loop
``for p in model.parameters(): p.data.uniform_(-0.08, 0.08)`` - the embedding included.
The frozen table now holds small random numbers, not the vectors: training can still fit
the words it sees through the head, but the words it never saw carry nothing, and held-out
sentences built on them are guessed.

Reported: "Bug with get the embedding from pre-trained model" -
https://github.com/IBM/pytorch-seq2seq/issues/147 (labelled bug: the sample's init loop
over ``seq2seq.parameters()`` also draws over the loaded embedding - "I think we shouldn't
init the embedding"; the fix proposed initialises only the parameters that require
gradients). Here the topic corpus of ``_hand_loaded_vectors``, the GloVe-like vectors
written into the embedding as a frozen Parameter (as the library's encoder does with
``update_embedding=False``), the uniform init loop, mean pooling into a small MLP head,
Adam over the trainable parameters, 200 steps of 32 sentences.

Fix: initialise only the trainable parameters (``if p.requires_grad``), leaving the frozen
pretrained table as loaded.

Measured (held-out accuracy, 1000 sentences): 0.286 with the bug, 0.998 fixed; seeds + 1000:
0.337 vs 0.999.
"""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._hand_loaded_vectors import (DIM, STEPS, BagOfVectors, corpus,
                                                       train)

TITLE = "Bug with get the embedding from pre-trained model"
LINK = "https://github.com/IBM/pytorch-seq2seq/issues/147"
EXPECTED = ("PRETRAINED_WEIGHTS_NOT_LOADED",)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    train_texts, train_labels, held_texts, held_labels, vector_file = corpus(rng)
    word_to_id = {"<pad>": 0, "<unk>": 1}
    for word, _ in vector_file:
        word_to_id[word] = len(word_to_id)
    pretrained = torch.zeros(len(word_to_id), DIM)
    for word, vector in vector_file:
        pretrained[word_to_id[word]] = torch.from_numpy(vector)
    embedding = nn.Embedding(len(word_to_id), DIM, padding_idx=0)
    embedding.weight = nn.Parameter(pretrained)
    embedding.weight.requires_grad = False          # the vectors stay as loaded
    model = BagOfVectors(embedding)
    for p in model.parameters():
        if fixed and not p.requires_grad:
            continue
        p.data.uniform_(-0.08, 0.08)                # BUG (unfixed): the embedding too
    ids = torch.tensor([[word_to_id[w] for w in t] for t in train_texts])
    held_ids = torch.tensor([[word_to_id[w] for w in t] for t in held_texts])
    lengths = torch.full((len(ids),), ids.shape[1])
    held = held_ids, torch.full((len(held_ids),), held_ids.shape[1]), held_labels
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=3e-3)
    return train(model, optimizer, ids, lengths, train_labels, held, steps, rng, **watch)

"""A Keras-style word2vec whose target word and context word are looked up in ONE shared
Embedding layer, where word2vec keeps two tables (input vectors and output vectors). With
one table the score of a (word, context) pair is the dot product of two rows of the same
matrix, so training pulls every word's vector towards the vectors of the words it
APPEARS WITH: the nearest neighbours of a word become its context words, not the words
that appear in the same contexts (interchangeable words that never meet each other end
up far apart). It trains, accuracy and loss look fine; the similarities are the wrong
kind.

Reported: "Possible reasons for word2vec learning context words as most similar rather
than words in similar contexts" -
https://datascience.stackexchange.com/questions/42287/possible-reasons-for-word2vec-learning-context-words-as-most-similar-rather-than
("I have implemented the original word2vec in keras ... when I rank the most similar words
given a certain word, I get words that appear in the context of that word, rather than
words that appear in similar context"; the model in the question:
``embedding = Embedding(vocab_size, vector_dim, input_length=1)`` applied to both
``input_target`` and ``input_context``, ``Dot(axes=1)``, ``Dense(1,
activation='sigmoid')``, binary cross-entropy, rmsprop; 4 context words labelled 1 and 4
random words labelled 0 per word of a 5-gram). Here that model in PyTorch (Keras' default
U(-0.05, 0.05) embedding init, the 1-unit dense layer on the dot product, RMSprop at
0.01) on a corpus made for the question (benchmarks/real_bugs/_w2v.py): 16 groups of 4
interchangeable words that never share a sentence, each group with 6 cue words of its
own, plus 32 Zipf-frequent function words; 6000 sentences of 10 words, window 2, batches
of 128 words (4 context and 4 random words each). Fix: a second Embedding for the context
words.

Measured (synonym precision of the target-word vectors: the share of each interchangeable
word's 3 nearest words that are its group's other interchangeable words, chance 0.016):
seed 0: 0.13 with the bug, 0.56 fixed; seeds shifted by 1000: 0.09 against 0.42.
"""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._w2v import (SYN_VOCAB, skipgram_pairs, synonym_precision,
                                       synonym_sentences)

TITLE = ("Possible reasons for word2vec learning context words as most similar rather than "
         "words in similar contexts")
LINK = ("https://datascience.stackexchange.com/questions/42287/"
        "possible-reasons-for-word2vec-learning-context-words-as-most-similar-rather-than")
EXPECTED = ("MODULE_REPEATED_IN_CONTAINER",)
STEPS = 400
SENTENCES, DIM, BATCH, RANDOM_WORDS, LR = 6000, 32, 128, 4, 0.01


class Word2Vec(nn.Module):
    def __init__(self, fixed, vocab=SYN_VOCAB, dim=DIM):
        super().__init__()
        self.embedding = nn.Embedding(vocab, dim)
        nn.init.uniform_(self.embedding.weight, -0.05, 0.05)          # Keras' default
        if fixed:
            self.context_embedding = nn.Embedding(vocab, dim)
            nn.init.uniform_(self.context_embedding.weight, -0.05, 0.05)
        else:        # BUG: the context words looked up in the target words' table
            self.context_embedding = self.embedding
        self.output = nn.Linear(1, 1)                                 # Dense(1, sigmoid)

    def forward(self, target, context):
        dot_product = (self.embedding(target) * self.context_embedding(context)).sum(-1)
        return self.output(dot_product.unsqueeze(-1)).squeeze(-1)     # logits


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    ids = synonym_sentences(SENTENCES, rng)
    centre, context = skipgram_pairs(ids)
    model = Word2Vec(fixed)
    optimizer = torch.optim.RMSprop(model.parameters(), lr=LR)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            pick = torch.randint(0, len(centre), (BATCH * 4,))
            random_words = torch.randint(1, SYN_VOCAB, (BATCH * RANDOM_WORDS,))
            target = torch.cat([centre[pick], centre[pick[:BATCH * RANDOM_WORDS]]])
            words = torch.cat([context[pick], random_words])
            labels = torch.cat([torch.ones(BATCH * 4), torch.zeros(BATCH * RANDOM_WORDS)])
            optimizer.zero_grad()
            loss = F.binary_cross_entropy_with_logits(model(target, words), labels)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.neighbour_precision = synonym_precision(model.embedding.weight)
    return mon

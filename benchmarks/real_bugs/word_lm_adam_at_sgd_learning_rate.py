"""A word-level LSTM language model trained with Adam at a learning rate of 1.0 - the
value an SGD language-model recipe uses, kept when the optimizer was switched to Adam.
Adam's steps are about the learning rate in size whatever the gradient, so every weight
moves by about 1 per step: the embeddings, gates and decoder are thrown around, the
scores grow huge, and the loss jumps from ln(147) = 5 to about 14 nats in the first
steps and then wanders between 14 and 28, never coming back down. Nothing errors, no
value goes non-finite.

Reported: "Adam's learning rate" - https://github.com/rajveermalviya/language-modeling/issues/3
(a PTB word-level LSTM language model: "the loss during training didn't really went down
even after many epochs ... because you use learning rate of 1.0"; with Adam's default
0.001 "the training get much better"; the author updated the config). Here a synthetic
corpus of topical paragraphs (benchmarks/real_bugs/_tbptt_word_lm.py): 16 batchified
streams read in windows of 4 words with the detached state carried on, an embedding, one
LSTM layer of 64 units, a linear decoder, gradient norm clipped at 1. Fix: Adam at a rate
on its own scale (the report's 1e-3 is slow for a run this short; 3e-3 here).

Measured (held-out cross-entropy in nats per word on the last 15% of the stream, read in
one stream with the state carried; the perplexity is its exp): seed 0, 28.0 for the bug
(over-confident wrong guesses) against 1.90 (perplexity 6.7) for the fixed twin; seeds
shifted by 1000, 27.3 against 1.93.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._tbptt_word_lm import (STREAMS, VOCAB, WordLSTM, batchify,
                                                 held_out_cross_entropy, repackage_hidden,
                                                 split_corpus, windows)

TITLE = "Adam's learning rate"
LINK = "https://github.com/rajveermalviya/language-modeling/issues/3"
EXPECTED = ("LR_TOO_HIGH",)
STEPS = 600


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held_out = split_corpus(seed=0)
    model = WordLSTM()
    lr = 3e-3 if fixed else 1.0                            # BUG: an SGD recipe's rate
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)

    hidden = None
    with nd.watch(model, optimizer, **watch) as mon:
        for i, data, targets in windows(batchify(train, STREAMS), steps):
            if i == 0:
                hidden = None                              # a new pass over the text
            output, hidden = model(data, hidden)
            hidden = repackage_hidden(hidden)
            loss = nn.functional.cross_entropy(output.reshape(-1, VOCAB), targets.reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            mon.step(loss)
    mon.held_out_cross_entropy = held_out_cross_entropy(model, held_out)
    return mon

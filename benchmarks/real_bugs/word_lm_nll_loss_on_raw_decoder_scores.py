"""A word-level LSTM language model trained with ``nn.NLLLoss`` on the decoder's raw
scores. NLLLoss expects log-probabilities and only picks out minus the target's entry; on
raw scores it is minimised by pushing the target word's score up without bound, never by
pushing the other words' down, so the "loss" falls below zero and keeps falling while the
scores stop meaning probabilities. Training runs, the printed loss goes down every epoch,
the perplexity printed from it reads 0 (exp of a negative loss); the model's real
held-out perplexity is far worse than a unigram model's.

Reported: "Wrong loss values and perplexity reported in word language model example" -
https://github.com/pytorch/examples/issues/734 ("I get negative loss and 0 perplexity"
running the word_language_model example; its criterion had become ``nn.NLLLoss`` while
the RNN model still returned raw decoder output; fixed by PR #732, "taking NLLLoss of
direct RNN output (not the LogSoftMax), resulting in negative losses", which applies
log_softmax). Here the example's recipe on a synthetic corpus of topical paragraphs
(benchmarks/real_bugs/_tbptt_word_lm.py): 16 batchified streams read in windows of 4
words, the detached state carried on, an embedding, one LSTM layer of 64 units, a linear
decoder; plain SGD at the example's lr 20 with its gradient clipping at 0.25. Fix:
``F.log_softmax`` on the decoder's output before NLLLoss (the PR's fix).

Measured (held-out cross-entropy in nats per word of the softmaxed scores, on the last
15% of the stream read in one stream; the perplexity is its exp): seed 0, 6570 for the bug
(the scores grew without bound: the wrong words get huge scores too) against 1.80
(perplexity 6.1) for the fixed twin; seeds shifted by 1000, 6591 against 1.81.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._tbptt_word_lm import (STREAMS, VOCAB, WordLSTM, batchify,
                                                 held_out_cross_entropy, repackage_hidden,
                                                 split_corpus, windows)

TITLE = "Wrong loss values and perplexity reported in word language model example"
LINK = "https://github.com/pytorch/examples/issues/734"
EXPECTED = ("NLL_ON_PROBABILITIES", "LOSS_UNBOUNDED_BELOW")
STEPS = 600


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held_out = split_corpus(seed=0)
    model = WordLSTM()
    optimizer = torch.optim.SGD(model.parameters(), lr=20.0)
    criterion = nn.NLLLoss()

    hidden = None
    with nd.watch(model, optimizer, **watch) as mon:
        for i, data, targets in windows(batchify(train, STREAMS), steps):
            if i == 0:
                hidden = None                              # a new pass over the text
            output, hidden = model(data, hidden)
            hidden = repackage_hidden(hidden)
            output = output.view(-1, VOCAB)
            if fixed:
                output = nn.functional.log_softmax(output, dim=-1)
            loss = criterion(output, targets.reshape(-1))  # BUG: raw scores into NLLLoss
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 0.25)
            optimizer.step()
            mon.step(loss)
    mon.held_out_cross_entropy = held_out_cross_entropy(model, held_out)
    return mon

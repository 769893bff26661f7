"""A word-level LSTM language model trained by truncated backpropagation through time that
hands only HALF of its state to the next window: the hidden output h is carried (detached)
from one window to the next, but the cell state c starts every window at zero. The cell
is where an LSTM keeps what it must remember for long (here the paragraph's topic, read
in an earlier window); with it wiped every few words, each window starts from a
short-term summary only, and the model predicts the topic's words worse. The loss falls,
nothing errors, every shape is right.

Reported: "Language model" - https://github.com/Lasagne/Recipes/pull/5 (a PTB LSTM
language model recipe; a reviewer measured validation perplexity "around 600 on PTB,
while Zaremba's LM can get around 100": it "can only remember the hidden outputs for the
next batch, but cannot do that for the cell states"). Here a synthetic corpus of topical
paragraphs (benchmarks/real_bugs/_tbptt_word_lm.py): the first 85% batchified into 16
streams and read in windows of 4 words, an embedding, one LSTM layer of 64 units, a linear
decoder, Adam 3e-3, gradient norm clipped at 1. Fix: carry the detached (h, c) pair.

Measured (held-out cross-entropy in nats per word on the last 15% of the stream, read
in one stream in windows of 4, each model handing its state on as it was trained to;
perplexity in brackets): seed 0, 2.03 (7.6) for the bug against 1.90 (6.7) for the fixed
twin; seeds shifted by 1000, 2.02 (7.6) against 1.93 (6.9). A modest gap: h still carries
a squashed copy of what c held, from which the next window's cell partly rebuilds it.
EXPECTED gained STATE_RESET_BETWEEN_CONTIGUOUS_WINDOWS after scoring: the code that names
a state reset between consecutive windows of the text did not exist in the checklist when
the case was written (RECURRENT_STATE_NEVER_PASSED names a state dropped inside a window).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._tbptt_word_lm import (STREAMS, VOCAB, WordLSTM, batchify,
                                                 held_out_cross_entropy, split_corpus,
                                                 windows)

TITLE = "Language model"
LINK = "https://github.com/Lasagne/Recipes/pull/5"
EXPECTED = ("RECURRENT_STATE_NEVER_PASSED", "STATE_RESET_BETWEEN_CONTIGUOUS_WINDOWS")
STEPS = 600


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held_out = split_corpus(seed=0)
    model = WordLSTM()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)

    def carry(hidden):
        h, c = hidden
        if fixed:
            return h.detach(), c.detach()
        return h.detach(), torch.zeros_like(c)            # BUG: only h goes on

    hidden = None
    with nd.watch(model, optimizer, **watch) as mon:
        for i, data, targets in windows(batchify(train, STREAMS), steps):
            if i == 0:
                hidden = None                              # a new pass over the text
            output, hidden = model(data, hidden)
            hidden = carry(hidden)
            loss = nn.functional.cross_entropy(output.reshape(-1, VOCAB), targets.reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            mon.step(loss)
    mon.held_out_cross_entropy = held_out_cross_entropy(model, held_out, carry)
    return mon

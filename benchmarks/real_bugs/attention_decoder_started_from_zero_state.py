"""An attention decoder started from a zero hidden state instead of the encoder's final
state: the encoder's summary of the sentence is computed and dropped, and the decoder
must find everything - even how long the sentence is and which word comes first - through
its attention, from a first query that is the same for every sentence. It trains and the
loss falls; the translations are worse.

Reported: "Decoder is not initialized to final encoder state" -
https://github.com/neulab/xnmt/issues/132 (labelled "moderate bug" by the maintainer: "It is
important to initialize the decoder with the final state of the encoder, but we are not
doing this well"; fixed by PR #168, "Input feeding + init_decoder"). Here the tutorials'
batched GRU encoder and GRU decoder with Luong attention (benchmarks/real_bugs/
_seq2seq_tutorials.py) learn batch 163's reversed word-by-word translation, teacher forced,
cross-entropy over the real tokens, Adam. Fix: ``decoder_hidden = encoder_hidden``.

Measured (300 steps of 64 sentences; held-out exact-match rate of greedy translations of 500
sentences): seed 0, 0.142 for the bug against 0.884 for the fixed twin; seeds shifted by
1000, 0.112 against 0.912.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._seq2seq_tutorials import (Decoder, Encoder, Seq2Seq, Vocab, batch,
                                                     data, greedy, source_keep)
from benchmarks.real_bugs._s2s163 import exact_match, translate_all

TITLE = "Decoder is not initialized to final encoder state"
LINK = "https://github.com/neulab/xnmt/issues/132"
EXPECTED = ("RECURRENT_STATE_NEVER_PASSED",)
STEPS = 300


class ZeroStartEncoder(Encoder):
    """The encoder as the decoder sees it: its outputs, and the state handed over."""

    def __init__(self, hand_over):
        super().__init__()
        self.hand_over = hand_over

    def forward(self, source):
        outputs, hidden = super().forward(source)
        if not self.hand_over:
            hidden = torch.zeros_like(hidden)    # BUG: the decoder starts from zeros
        return outputs, hidden


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    vocab = Vocab()
    train, held_out = data(vocab, seed=0)
    model = Seq2Seq(ZeroStartEncoder(hand_over=fixed), Decoder(vocab.size))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train), steps, 64, seed=0):
            source, dec_in, labels = batch(train, index, vocab)
            outputs, hidden = model.encoder(source)
            keep = source_keep(source)
            loss = 0
            for t in range(labels.shape[1]):
                logits, hidden = model.decoder.step(dec_in[:, t:t + 1], hidden, outputs, keep)
                loss = loss + F.cross_entropy(logits, labels[:, t], ignore_index=vocab.pad)
            loss = loss / labels.shape[1]
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    mon.held_out_exact_match = exact_match(
        translate_all(lambda s: greedy(model.encoder, model.decoder, s, vocab), held_out),
        held_out, vocab)
    return mon

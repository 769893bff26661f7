"""The "NMT with attention" tutorial's decoder runs its GRU one step per call as
``output, state = self.gru(x)`` - without ``initial_state=hidden`` - so every decoding
step starts the GRU from zeros. The returned state is passed back in, but only as the
attention query; the recurrence itself is cut, and the decoder remembers nothing of what it
has written beyond the last token and where it last attended. It trains, the loss falls,
and it translates worse than the connected decoder.

Reported: "in nmt_with_attention, the gru in decoder is not connected, last step state is
not passed to this step" - https://github.com/tensorflow/tensorflow/issues/38248 ("the
decoder is trained step by step, and it's not passing last step state to this step";
a TensorFlow docs maintainer: "I think you're right ... all it needs is a
``output, state = self.gru(x, initial_state=hidden)``"; labelled docs-bug). Here the
tutorial's decoder in PyTorch (Bahdanau-style: the previous state queries the encoder's
outputs, the context is concatenated to the embedded previous token, one GRU step, a
Linear onto the vocabulary), batched, learning batch 163's reversed word-by-word
translation (benchmarks/real_bugs/_seq2seq_tutorials.py), teacher forced, cross-entropy
over the real tokens, Adam. Fix: the GRU step starts from the previous state.

Measured (300 steps of 64 sentences; held-out exact-match rate of greedy translations of 500
sentences): seed 0, 0.380 for the bug against 0.964 for the fixed twin; seeds shifted by
1000, 0.406 against 0.916.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._seq2seq_tutorials import (DIM, Encoder, Seq2Seq, Vocab, batch, data,
                                                     held_out_exact_match, source_keep)

TITLE = ("in nmt_with_attention, the gru in decoder is not connected, last step state is "
         "not passed to this step")
LINK = "https://github.com/tensorflow/tensorflow/issues/38248"
EXPECTED = ("RECURRENT_STATE_NEVER_PASSED",)
STEPS = 300


class BahdanauDecoder(nn.Module):
    def __init__(self, vocab_size, connected, dim=DIM):
        super().__init__()
        self.connected = connected
        self.embedding = nn.Embedding(vocab_size, dim)
        self.W1, self.W2 = nn.Linear(dim, dim), nn.Linear(dim, dim)
        self.V = nn.Linear(dim, 1)
        self.gru = nn.GRU(2 * dim, dim, batch_first=True)
        self.fc = nn.Linear(dim, vocab_size)

    def step(self, token, hidden, outputs, keep):
        query = hidden.transpose(0, 1)                                  # (B, 1, H)
        score = self.V(torch.tanh(self.W1(outputs) + self.W2(query)))   # (B, S, 1)
        score = score.masked_fill(~keep.transpose(1, 2), -1e9)
        context = (F.softmax(score, dim=1) * outputs).sum(1, keepdim=True)
        x = torch.cat([context, self.embedding(token)], -1)
        if self.connected:
            output, state = self.gru(x, hidden)
        else:
            output, state = self.gru(x)          # BUG: the step starts from zeros
        return self.fc(output).squeeze(1), state


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    vocab = Vocab()
    train, held_out = data(vocab, seed=0)
    model = Seq2Seq(Encoder(), BahdanauDecoder(vocab.size, connected=fixed))
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
    mon.held_out_exact_match = held_out_exact_match(model.encoder, model.decoder, held_out,
                                                    vocab)
    return mon

"""The translation tutorial's ``AttnDecoderRNN`` computes its attention weights from the
decoder's own input embedding and previous hidden state only -
``softmax(attn(cat(embedded, hidden)))``, a Linear layer onto ``max_length`` fixed source
POSITIONS - and never compares them with the encoder's outputs. The "attention" can only
learn where to look by position (guessing the sentence's length from the hidden state), not
which source word belongs to the word it must write next; padded positions get weight too.
It trains, the loss falls, and the translations stay worse than with real attention.

Reported: "The attention mechanism is not the best one" -
https://github.com/spro/practical-pytorch/issues/84 (the reporter: "the calculated attention
weights have no relationship with the encoder output vectors" - ``attn_weights =
F.softmax(self.attn(torch.cat((embedded[0], hidden[0]), 1)), dim=1)`` - and the tutorial's
model "has performance even worse than simple encoder-decoder", with the loss curves of
both; the same code is reported in pytorch/tutorials#1098, later rewritten with Bahdanau
attention). Here the tutorial's decoder batched (embedding, attention over the encoder's
outputs padded to ``max_length``, ``attn_combine`` + ReLU, GRU, output layer) learns batch
163's reversed word-by-word translation (benchmarks/real_bugs/_seq2seq_tutorials.py),
teacher forced, cross-entropy over the real tokens, Adam. Fix: the scores are the decoder
state's dot products with each encoder output (Luong), padding masked.

Measured (300 steps of 64 sentences; held-out exact-match rate of greedy translations of 500
sentences): seed 0, 0.178 for the bug against 0.476 for the fixed twin; seeds shifted by
1000, 0.290 against 0.458.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._seq2seq_tutorials import (DIM, MAX_LEN, Encoder, Seq2Seq, Vocab,
                                                     batch, data, held_out_exact_match,
                                                     source_keep)

TITLE = "The attention mechanism is not the best one"
LINK = "https://github.com/spro/practical-pytorch/issues/84"
EXPECTED = ("ATTENTION_UNIFORM",)
STEPS = 300
MAX_LENGTH = MAX_LEN + 1                    # the longest source: 10 words and EOS


class AttnDecoderRNN(nn.Module):
    def __init__(self, vocab_size, content, dim=DIM):
        super().__init__()
        self.content = content
        self.embedding = nn.Embedding(vocab_size, dim)
        if not content:                     # the fix has no use for it
            self.attn = nn.Linear(2 * dim, MAX_LENGTH)
        self.attn_combine = nn.Linear(2 * dim, dim)
        self.gru = nn.GRU(dim, dim, batch_first=True)
        self.out = nn.Linear(dim, vocab_size)

    def step(self, token, hidden, outputs, keep):
        embedded = self.embedding(token)                            # (B, 1, H)
        padded = F.pad(outputs, (0, 0, 0, MAX_LENGTH - outputs.shape[1]))
        if self.content:
            query = hidden.transpose(0, 1)                          # (B, 1, H)
            scores = (query @ outputs.transpose(1, 2)).masked_fill(~keep, -1e9)
            scores = F.pad(scores, (0, MAX_LENGTH - outputs.shape[1]), value=-1e9)
        else:
            # BUG: weights over positions from the decoder's input and state alone
            scores = self.attn(torch.cat([embedded, hidden.transpose(0, 1)], -1))
        attn_applied = F.softmax(scores, dim=-1) @ padded           # (B, 1, H)
        output = F.relu(self.attn_combine(torch.cat([embedded, attn_applied], -1)))
        output, hidden = self.gru(output, hidden)
        return self.out(output).squeeze(1), hidden


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    vocab = Vocab()
    train, held_out = data(vocab, seed=0)
    model = Seq2Seq(Encoder(), AttnDecoderRNN(vocab.size, content=fixed))
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

"""A sequence autoencoder (the encoder and decoder of a SMILES VAE) whose bidirectional GRU
encoder turns its last layer's final states, shaped (directions, batch, hidden), into one
code per sample with .view(batch, directions * hidden): each row of the result joins the
forward states of two neighbouring samples (or the backward states of two others), so the
code a sample is decoded from was read from other samples. It trains, the loss falls a
little, and the decoder cannot give back what it was shown.

Reported: "Incorrect hidden layer reshaping in GRUEncoder" -
https://github.com/PaccMann/paccmann_chemistry/issues/5 ("hidden's batch dimension ends
up being mixed up with the n_directions dimension, i.e. mixing the samples together").
Here random 6-token sequences (10 symbols) encoded by a 2-layer bidirectional GRU, the
last layer's states reshaped as in the report into a 32-unit code (no sampling: the
deterministic part of the VAE), a GRU decoder started from the code and teacher-forced to
give the sequence back; Adam, batches of 64, 300 steps.
Fix: put the batch first before flattening, hidden.permute(1, 0, 2).reshape(batch, -1).

Measured (held-out token accuracy of the reconstruction, teacher-forced, 500 sequences):
seed 0: 0.104 with the bug, 0.858 fixed; seeds + 1000: 0.106 vs 0.849.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._seqaxis320 import reversal_data, token_accuracy

TITLE = "Incorrect hidden layer reshaping in GRUEncoder"
LINK = "https://github.com/PaccMann/paccmann_chemistry/issues/5"
EXPECTED = ("BATCH_MIXING", "RESHAPE_USED_AS_TRANSPOSE")
STEPS = 300
VOCAB, LAYERS, HIDDEN, CODE = 12, 2, 48, 32     # ids 2..11 are symbols, 1 the start id


class GRUAutoencoder(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.emb = nn.Embedding(VOCAB, 32)
        self.encoder = nn.GRU(32, HIDDEN, LAYERS, batch_first=True, bidirectional=True)
        self.to_code = nn.Linear(2 * HIDDEN, CODE)
        self.from_code = nn.Linear(CODE, HIDDEN)
        self.decoder = nn.GRU(32, HIDDEN, batch_first=True)
        self.out = nn.Linear(HIDDEN, VOCAB)

    def encode(self, src):
        _, hidden = self.encoder(self.emb(src))         # (layers * 2, batch, hidden)
        batch = src.size(0)
        hidden = hidden.view(LAYERS, 2, batch, HIDDEN)[-1]       # (2, batch, hidden)
        if self.fixed:
            hidden = hidden.permute(1, 0, 2).reshape(batch, 2 * HIDDEN)
        else:
            hidden = hidden.view(batch, 2 * HIDDEN)      # BUG: rows mix the samples
        return self.to_code(hidden)

    def forward(self, src):
        code = self.encode(src)
        start = torch.ones_like(src[:, :1])
        dec_in = self.emb(torch.cat([start, src[:, :-1]], dim=1))
        dec, _ = self.decoder(dec_in, torch.tanh(self.from_code(code)).unsqueeze(0))
        return self.out(dec)                            # (batch, length, vocab)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    src, _ = reversal_data(3000, seed=0)
    src_h, _ = reversal_data(500, seed=1)
    model = GRUAutoencoder(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for sb, _ in batches(src, src, steps):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(sb).transpose(1, 2), sb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        mon.held_out_token_accuracy = token_accuracy(model(src_h), src_h)
    return mon

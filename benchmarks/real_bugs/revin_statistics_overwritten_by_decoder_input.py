"""An encoder-decoder transformer forecaster (Informer-style decoder input: the last 12
observed steps followed by 12 zero placeholders for the horizon) with one RevIN layer
called twice: once on the encoder input and again on the decoder input. The second call
recomputes and stores the decoder input's own mean and deviation - statistics diluted by
the zero placeholders - so the decoder reads a differently scaled copy of the series and
the final denormalisation restores the forecast with the wrong level and scale. Training
loss falls; forecasts keep a bias that grows with each series' level.

Reported: "Is it added correctly" - https://github.com/ts-kim/RevIN/issues/2 (RevIN added
to Informer with ``x_dec = self.revin_layer(x=x_dec, mode='norm')`` after the encoder's;
the authors: "the line ... is unnecessary"). Here 3000 synthetic seasonal windows (48 steps
in, 12 out; levels in [-50, 50], amplitudes 0.5-20), the encoder reading 6 patches of 8
steps, the decoder one token per step, one encoder and one decoder layer (width 32), Adam 1e-3, batches of 32, MSE on the denormalised horizon.
Fix: normalise only once, on the encoder input, and build the decoder input from that
normalised series (its last 12 steps and zeros), so the stored statistics stay the
encoder's.

Measured (held-out MSE in units of each window's amplitude, 500 other series): 6.22 with
the bug, 0.552 fixed; seeds + 1000: 3.47 vs 0.616.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._ts327 import HORIZON, LOOKBACK, PATCH, data, scaled_mse

TITLE = "Is it added correctly"
LINK = "https://github.com/ts-kim/RevIN/issues/2"
EXPECTED = ("SCALED_WITH_TARGET_STATISTICS", "INPUT_ROWS_STANDARDISED")
STEPS = 300
LABEL = 12


class RevIN(nn.Module):
    def __init__(self, eps=1e-5):
        super().__init__()
        self.eps = eps

    def forward(self, x, mode):
        if mode == "norm":
            self.mean = x.mean(dim=1, keepdim=True).detach()
            self.stdev = torch.sqrt(x.var(dim=1, keepdim=True, unbiased=False) + self.eps).detach()
            return (x - self.mean) / self.stdev
        return x * self.stdev + self.mean


class Seq2SeqForecaster(nn.Module):
    def __init__(self, fixed, dim=32):
        super().__init__()
        self.fixed = fixed
        self.revin = RevIN()
        self.enc_embed, self.dec_embed = nn.Linear(PATCH, dim), nn.Linear(1, dim)
        self.enc_pos = nn.Parameter(0.02 * torch.randn(1, LOOKBACK // PATCH, dim))
        self.dec_pos = nn.Parameter(0.02 * torch.randn(1, LABEL + HORIZON, dim))
        self.transformer = nn.Transformer(dim, 4, 1, 1, 64, dropout=0.0, batch_first=True)
        self.out = nn.Linear(dim, 1)

    def forward(self, x_enc):
        placeholders = torch.zeros(x_enc.shape[0], HORIZON, 1)
        if self.fixed:
            x_enc = self.revin(x_enc, "norm")
            x_dec = torch.cat([x_enc[:, -LABEL:], placeholders], dim=1)
        else:
            x_dec = torch.cat([x_enc[:, -LABEL:], placeholders], dim=1)
            x_enc = self.revin(x_enc, "norm")
            x_dec = self.revin(x_dec, "norm")  # BUG: overwrites the encoder's statistics
        patches = x_enc[..., 0].unfold(1, PATCH, PATCH)      # encoder tokens: patches
        h = self.transformer(self.enc_embed(patches) + self.enc_pos,
                             self.dec_embed(x_dec) + self.dec_pos)
        return self.revin(self.out(h[:, -HORIZON:]), "denorm")


def run(fixed=False, steps=STEPS, **watch):
    x, y, xh, yh, scale_h = data(0)
    torch.manual_seed(0)
    model = Seq2SeqForecaster(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, 32, seed=0):
            optimizer.zero_grad()
            loss = loss_fn(model(x[index]), y[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        mon.held_out_scaled_mse = scaled_mse(model(xh), yh, scale_h)
    return mon

"""A multichannel forecaster built on nn.Transformer whose decoder is handed
``torch.zeros_like(y)`` as its input in training: every horizon step reads the same
constant vector, so the decoder can only say one thing for all of them and the forecast
comes out flat.

Reported: "Solving the PyTorch Transformer Stagnation: Why Multi-Dimensional Seq2Seq Outputs
Become Constant" - https://openillumi.com/en/en-pytorch-transformer-multidim-output-same-fix
("The primary cause identified was the critical error in the training loop where a zero
tensor (torch.zeros) was incorrectly passed as the decoder input (tgt)"; the fix given:
"pred = model(src=x, tgt=y[:, :-1])", teacher forcing). Here four noisy sine waves of random
frequency and phase: 24 steps read, the next 8 forecast; positions are added on the
encoder's side only (with positions on the decoder's side too, zeros there are a
legitimate query, as in Informer-style forecasters: that variant learns). Harm (seed 0, 400
steps, 512 held-out windows, the fixed twin decoding step by step from the last value read):
forecast MSE 0.39 against 0.31, the forecast the same value at all 8 steps (its spread over
the horizon 0.000, the fixed twin's 0.54).
How watch finds it: on the first recorded steps the model's second float input holds one
value everywhere and its output is the same at every one of that input's positions
(DECODER_INPUT_CONSTANT; its first guess, CONSTANT_INPUTS, reads only the first input, the
history, which varies). The decoder's first norm giving every sample one activation
(COLLAPSED_ACTIVATIONS) is that finding's symptom.
Fix: the decoder reads the last value read and the targets shifted right (teacher forcing),
under a causal mask; at inference, its own forecasts.
"""
import math

import torch
from torch import nn

from benchmarks.real_bugs._common import train_watched

TITLE = ("Solving the PyTorch Transformer Stagnation: Why Multi-Dimensional Seq2Seq Outputs "
         "Become Constant")
LINK = "https://openillumi.com/en/en-pytorch-transformer-multidim-output-same-fix"
EXPECTED = ("DECODER_INPUT_CONSTANT",)
STEPS = 400
CHANNELS, HISTORY, HORIZON = 4, 24, 8


class Forecaster(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.read_in, self.read_out = nn.Linear(CHANNELS, dim), nn.Linear(dim, CHANNELS)
        self.position = nn.Embedding(HISTORY, dim)
        self.transformer = nn.Transformer(dim, 4, 1, 1, dim_feedforward=64, dropout=0.0,
                                          batch_first=True)

    def forward(self, history, decoder_inputs):
        source = self.read_in(history) + self.position(torch.arange(HISTORY))
        causal = nn.Transformer.generate_square_subsequent_mask(decoder_inputs.shape[1])
        out = self.transformer(source, self.read_in(decoder_inputs), tgt_mask=causal)
        return self.read_out(out)


def sine_windows(count, seed):
    """(history (count, HISTORY, CHANNELS), future (count, HORIZON, CHANNELS))."""
    g = torch.Generator().manual_seed(seed)
    frequency = 0.2 + 0.6 * torch.rand(count, 1, CHANNELS, generator=g)
    phase = 2 * math.pi * torch.rand(count, 1, CHANNELS, generator=g)
    t = torch.arange(HISTORY + HORIZON, dtype=torch.float32).view(1, -1, 1)
    series = torch.sin(frequency * t + phase)
    series = series + 0.05 * torch.randn(series.shape, generator=g)
    return series[:, :HISTORY], series[:, HISTORY:]


def forecast_batches(steps, fed_zeros, batch_size=64, seed=0):
    """((history, decoder inputs), future) per step, the decoder inputs as the loop built
    them."""
    for step in range(steps):
        history, future = sine_windows(batch_size, seed * 100_000 + step)
        if fed_zeros:
            decoder_inputs = torch.zeros_like(future)             # BUG: a constant input
        else:
            decoder_inputs = torch.cat([history[:, -1:], future[:, :-1]], dim=1)
        yield (history, decoder_inputs), future


class TwoInputs(nn.Module):
    """The loop's call: ``model(history, decoder_inputs)`` from one (history, inputs) pair."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, pair):
        return self.model(*pair)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = TwoInputs(Forecaster())
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, nn.functional.mse_loss,
                         forecast_batches(steps, fed_zeros=not fixed), **watch)

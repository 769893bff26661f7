"""An encoder-decoder forecaster whose decoder is never handed the encoder's final state:
the encoder reads the window of driving series, its summary is dropped, and the decoder
predicts from the target's own history alone, as if the driving series did not exist. The
encoder's weights take no part in the loss and never learn.

Reported: "Encoded state" - https://github.com/JulesBelveze/time-series-autoencoder/issues/14
(labelled bug: "As an argument to the forward Decoder function, you only pass y_hist. I
cannot understand why you do not pass also the Encoded Vector as the final hidden state
produced from the encoder part of the model"; the author: "that does not seem right to me
either. Tbh I haven't tried the model without attention!"). Here 4 driving series (AR(1),
coefficient 0.5) and a target that follows their weighted sum at the same step plus noise; the model
reads 16 steps of both and predicts the next target value.
Fix: start the decoder from the encoder's final (h, c).

Measured (300 steps, 500 held-out windows): held-out R^2 0.27 with the bug, 0.99 fixed.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import train_watched

TITLE = "Encoded state"
LINK = "https://github.com/JulesBelveze/time-series-autoencoder/issues/14"
EXPECTED = ("NO_GRADIENT",)
STEPS = 300
WINDOW, DRIVERS, SERIES_LENGTH, HELD_OUT = 16, 4, 3000, 500


def windows():
    """(driving window (W, 16, 4), target history (W, 16, 1), next target (W,))."""
    noise = torch.randn(SERIES_LENGTH, DRIVERS)
    drivers = torch.zeros_like(noise)
    for t in range(1, SERIES_LENGTH):           # each driver remembers half its last value
        drivers[t] = 0.5 * drivers[t - 1] + noise[t]
    target = drivers @ torch.tensor([1.0, -0.5, 0.8, 0.3]) + 0.1 * torch.randn(SERIES_LENGTH)
    target = (target - target.mean()) / target.std()
    starts = torch.arange(SERIES_LENGTH - WINDOW)
    steps = starts[:, None] + torch.arange(WINDOW)
    # the driving window reaches the predicted step; the target history stops before it
    return drivers[steps + 1], target[steps][..., None], target[starts + WINDOW]


class EncoderDecoder(nn.Module):
    def __init__(self, pass_encoded, hidden=32):
        super().__init__()
        self.pass_encoded = pass_encoded
        self.encoder = nn.LSTM(DRIVERS, hidden, batch_first=True)
        self.decoder = nn.LSTM(1, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 1)

    def forward(self, drivers, y_hist):
        _, encoded = self.encoder(drivers)
        if self.pass_encoded:
            out, _ = self.decoder(y_hist, encoded)
        else:
            out, _ = self.decoder(y_hist)       # BUG: the encoded state is dropped
        return self.head(out[:, -1]).squeeze(1)


def window_batches(data, steps, batch_size=64):
    g = torch.Generator().manual_seed(torch.initial_seed() + 1)   # moves with the seed
    for _ in range(steps):
        rows = torch.randint(0, len(data[0]), (batch_size,), generator=g)
        yield (data[0][rows], data[1][rows]), data[2][rows]


class Forecaster(nn.Module):
    """Takes the (drivers, history) pair the loop hands it as one input."""
    def __init__(self, pass_encoded):
        super().__init__()
        self.model = EncoderDecoder(pass_encoded)

    def forward(self, pair):
        return self.model(*pair)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    drivers, history, target = windows()
    train = drivers[:-HELD_OUT], history[:-HELD_OUT], target[:-HELD_OUT]
    model = Forecaster(pass_encoded=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    mon = train_watched(model, optimizer, nn.functional.mse_loss,
                        window_batches(train, steps), **watch)
    with torch.no_grad():
        predicted = model((drivers[-HELD_OUT:], history[-HELD_OUT:]))
        truth = target[-HELD_OUT:]
        mon.r2 = round(float(1 - ((predicted - truth) ** 2).mean() / truth.var()), 3)
    return mon

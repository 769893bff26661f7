"""A PatchTST-style forecaster behind a hand-written RevIN layer whose normalising branch
subtracts each window's mean but never divides by its standard deviation, while the
denormalising branch still multiplies the output by that deviation and adds the mean back.
The backbone sees windows whose amplitude spans 0.5 to 20, and whatever it predicts is then
stretched once more by the deviation: the forecast is off by a factor of the window's scale,
which no single set of weights can undo. The loss falls (the backbone fits the mid-sized
windows) and the forecasts of small and large series stay poor.

Reported: "Bug in RevIN for POTS data" - https://github.com/WenjieDu/PyPOTS/issues/453
(labelled bug: "for POTS data case, `x = x / self.stdev` is not applied"; the masked branch
of the library's RevIN centred the series but skipped the division, the reverse step
unchanged). Here 3000 synthetic seasonal windows (48 steps in, 12 out; levels in
[-50, 50], amplitudes 0.5-20), the lookback cut into 6 patches of 8 steps, one transformer
encoder layer, a flatten head; Adam 1e-3, batches of 32, MSE on the denormalised forecast.
Fix: divide the centred window by its standard deviation, as the reverse step assumes.

Measured (held-out MSE in units of each window's amplitude, 500 other series): 0.313 with
the bug, 0.231 fixed; seeds + 1000: 0.314 vs 0.221.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._ts327 import PatchEncoder, data, scaled_mse

TITLE = "Bug in RevIN for POTS data"
LINK = "https://github.com/WenjieDu/PyPOTS/issues/453"
EXPECTED = ("UNNORMALIZED_INPUTS", "INPUT_ROWS_STANDARDISED")
STEPS = 300


class RevIN(nn.Module):
    def __init__(self, divide=True, eps=1e-5):
        super().__init__()
        self.divide, self.eps = divide, eps

    def forward(self, x, mode):
        if mode == "norm":
            self.mean = x.mean(dim=1, keepdim=True).detach()
            self.stdev = torch.sqrt(x.var(dim=1, keepdim=True, unbiased=False) + self.eps).detach()
            x = x - self.mean
            if self.divide:                    # BUG when False: the division is skipped
                x = x / self.stdev
            return x
        return x * self.stdev + self.mean      # the reverse step always rescales


class Forecaster(nn.Module):
    def __init__(self, divide):
        super().__init__()
        self.revin = RevIN(divide)
        self.backbone = PatchEncoder()

    def forward(self, x):
        return self.revin(self.backbone(self.revin(x, "norm")), "denorm")


def run(fixed=False, steps=STEPS, **watch):
    x, y, xh, yh, scale_h = data(0)
    torch.manual_seed(0)
    model = Forecaster(divide=fixed)
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

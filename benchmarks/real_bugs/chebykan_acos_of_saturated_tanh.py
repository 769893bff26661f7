"""A Chebyshev KAN (ChebyKAN: every edge's activation a learned sum of Chebyshev
polynomials T_0..T_4 of tanh(x), evaluated as cos(n * acos(tanh(x)))) trained on the 8x8
digits. Once a hidden value passes about 9, tanh rounds to exactly 1.0 in float32; acos is
still finite there (0), but its derivative -1 / sqrt(1 - t^2) is infinite, and 0 * inf in
the chain rule makes the gradient NaN. One optimizer step later every coefficient is NaN,
and the network answers one class for every digit.

Reported: "loss nan" - https://github.com/SynodicMonth/ChebyKAN/issues/11 (ChebyKAN's
loss turns nan mid-run; the author: "try shrink the x a little to avoid nan caused by
acos()", x = tanh(x) * 0.99). Here two ChebyKAN layers (64 -> 32 -> 10, degree 4, no norm
between them), Adam (lr 1e-2), batches of 64, 300 steps, 500 digits held out.

Fix: the author's - keep the argument of acos strictly inside (-1, 1): tanh(x) * 0.99.

Measured (held-out accuracy): 0.10 with the bug (its weights NaN within the first
steps), 0.91 fixed; seeds + 1000: 0.10 vs 0.91.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "loss nan"
LINK = "https://github.com/SynodicMonth/ChebyKAN/issues/11"
EXPECTED = ("NAN_BORN_IN_BACKWARD",)
STEPS = 300


class ChebyKANLayer(nn.Module):
    def __init__(self, inputs, outputs, degree=4, shrink=1.0):
        super().__init__()
        self.shrink = shrink
        self.coeffs = nn.Parameter(torch.randn(inputs, outputs, degree + 1)
                                   / (inputs * (degree + 1)) ** 0.5)
        self.register_buffer("orders", torch.arange(degree + 1, dtype=torch.float32))

    def forward(self, x):
        t = torch.tanh(x) * self.shrink         # BUG when shrink == 1: t reaches +-1.0
        chebyshev = torch.cos(torch.acos(t).unsqueeze(-1) * self.orders)
        return torch.einsum("bid,iod->bo", chebyshev, self.coeffs)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    xh, yh, x, y = x[:500], y[:500], x[500:], y[500:]
    shrink = 0.99 if fixed else 1.0
    model = nn.Sequential(ChebyKANLayer(64, 32, shrink=shrink),
                          ChebyKANLayer(32, 10, shrink=shrink))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, seed=0):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        mon.held_out_accuracy = float((model(xh).argmax(1) == yh).float().mean())
    return mon

"""A quantile-regression head is trained with a pinball loss whose weights are swapped:
(tau - 1[y_pred < y]) * (y_pred - y) charges tau for an under-prediction and 1 - tau for
an over-prediction, the reverse of the pinball loss. Each output then learns the 1 - tau
quantile: the head named 0.1 predicts the 0.9 quantile and the other way round, so the
"10%-90%" band is upside down (lower above upper). The loss is non-negative and falls.

Reported: "Add IQN implementation" - https://github.com/awslabs/gluonts/pull/1784 (a review
thread on the implicit quantile network's ``quantile_loss``: the first rewrite
``(self.taus - (self.outputs < value).float()) * (self.outputs - value)`` is corrected by
the reviewer, "Sorry, got confused: it should be ``(self.taus - (value <
self.outputs).float()) * (value - self.outputs)``", with a proof by subgradient descent).
Here a 1-D heteroscedastic regression (noise scale 0.1 to 0.7) with three quantile outputs
(0.1, 0.5, 0.9), Adam, 128-row batches. Fix: ``(tau - (y < pred)) * (y - pred)``.

Measured (held-out mean pinball loss at the named levels, 1024 rows): bug 0.40 vs
fixed 0.11; seeds + 1000: 0.45 vs 0.12.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._prob import hetero_1d, minibatches, pinball, trunk

TITLE = "Add IQN implementation"
LINK = "https://github.com/awslabs/gluonts/pull/1784"
EXPECTED = ("LOSS_SIGN_FLIPPED",)
STEPS = 300
TAUS = torch.tensor([0.1, 0.5, 0.9])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (x, y), (x_test, y_test) = hetero_1d()
    model = trunk(len(TAUS))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in minibatches(x, y, steps):
            pred = model(xb)
            if fixed:
                loss = (TAUS - (yb < pred).float()) * (yb - pred)
            else:
                loss = (TAUS - (pred < yb).float()) * (pred - yb)   # BUG: tau and 1 - tau swapped
            loss = loss.mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_pinball = pinball(model(x_test), y_test, TAUS)
    return mon

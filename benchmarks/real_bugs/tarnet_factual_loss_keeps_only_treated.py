"""TARNet's factual loss multiplied by the treatment indicator: `factual_loss = (t *
squared_errors).mean()` keeps only the treated units' errors, so the control units' loss is
multiplied by zero - the control-outcome head never learns, and every estimated effect
mu1_hat - mu0_hat carries the untrained control head's output.

Reported: "想确认下TarNet的损失函数是不有个地方写错了？" ("is there a mistake in TarNet's loss
function?") - https://github.com/Zhuang-Zhuang-Liu/DeepUplift/issues/1 (the factual loss is
`(tr * squared_errors).mean()`; tr is the treatment, so only the treated group's loss is
kept and the control group's is multiplied away; it should be the plain mean; the author
fixed TarNet.py). Here a TARNet (shared ELU representation, one head per arm) on 1,600
synthetic confounded units with known potential outcomes (benchmarks/real_bugs/_uplift.py),
Adam 1e-3. Fix: the mean squared error over all units, each against its own arm's head.

Measured harm (held-out PEHE, lower is better): 1.13 vs 0.29; seeds + 1000: 1.15 vs 0.23.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._uplift import TARNet, index_batches, observational, pehe

TITLE = "想确认下TarNet的损失函数是不有个地方写错了？"
LINK = "https://github.com/Zhuang-Zhuang-Liu/DeepUplift/issues/1"
EXPECTED = ("NO_GRADIENT", "OUTPUT_UNITS_WITHOUT_GRADIENT")
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    data = observational()
    model = TARNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, t, y = data["x"], data["t"], data["y"]
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps):
            xb, tb, yb = x[index], t[index], y[index]
            y0, y1, _ = model(xb)
            y_pred = tb * y1 + (1 - tb) * y0
            squared_errors = (yb - y_pred) ** 2
            if fixed:
                loss = squared_errors.mean()
            else:
                loss = (tb * squared_errors).mean()     # BUG: the control units' loss is zeroed
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.extra = {"test_pehe": round(pehe(model, data), 3)}
    return mon

"""DragonNet's SGD stage ignores the user's learning rate: the optimizer is built with a
hard-coded `SGD(lr=1e-5, momentum=0.9, nesterov=True)`, so whatever `learning_rate` the user
passes, the network trains at 1e-5 and barely moves from its initialisation.

Reported: "Problem in dragonnet.py" - https://github.com/uber/causalml/issues/600 (the fit
runs Adam and then SGD; the paper recommends SGD, but "the SGD step fails to take as
argument the user specified learning rate and number of epochs, meaning that these are
finally ignored"; the reporter suggests dropping the Adam step and passing the user's
settings). Here the SGD-only fit the reporter proposes: a DragonNet (TARNet heads and a
treatment head on the shared representation, loss = outcome MSE + BCE of the treatment) on
1,600 synthetic confounded units (benchmarks/real_bugs/_uplift.py), user learning rate 1e-2.
Fix: the optimizer takes the user's learning rate.

Measured harm (held-out PEHE, lower is better): 1.59 vs 0.28; seeds + 1000: 1.55 vs 0.27.
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._uplift import TARNet, index_batches, observational, pehe

TITLE = "Problem in dragonnet.py"
LINK = "https://github.com/uber/causalml/issues/600"
EXPECTED = ("LR_TOO_LOW",)
STEPS = 300
LEARNING_RATE = 1e-2      # the user's setting


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    data = observational()
    model = TARNet(propensity=True)
    lr = LEARNING_RATE if fixed else 1e-5       # BUG when not fixed: hard-coded, user's ignored
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9, nesterov=True)
    x, t, y = data["x"], data["t"], data["y"]
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps):
            xb, tb, yb = x[index], t[index], y[index]
            y0, y1, t_logit = model(xb)
            y_pred = tb * y1 + (1 - tb) * y0
            loss = ((yb - y_pred) ** 2).mean() + F.binary_cross_entropy_with_logits(t_logit, tb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.extra = {"test_pehe": round(pehe(model, data), 3)}
    return mon

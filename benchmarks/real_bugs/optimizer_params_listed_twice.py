"""The optimizer built over a parameter list that names a shared network twice (actor and
critic share their body, and both modules' parameters are concatenated): every step updates
the shared parameters twice, and torch only warns ("optimizer contains a parameter group
with duplicate parameters").

Reported: "optimizer double update ? deprecation soon" -
https://github.com/thu-ml/tianshou/issues/395 ("The current version of the PPO test is
updating some parameters twice"; the maintainer: use set(actor.parameters()).union(
critic.parameters())). Here two heads over one shared body on the digits, Adam over
list(actor) + list(critic). Fix: give each parameter to the optimizer once.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "optimizer double update ? deprecation soon"
LINK = "https://github.com/thu-ml/tianshou/issues/395"
EXPECTED = ("FRAMEWORK_WARNING", "OPTIMIZER_DUPLICATE_PARAMS")
STEPS = 150


class TwoHeads(nn.Module):
    """A shared body with a classifier head (actor) and a value head (critic)."""

    def __init__(self):
        super().__init__()
        body = nn.Sequential(nn.Linear(64, 64), nn.ReLU())
        self.actor = nn.Sequential(body, nn.Linear(64, 10))
        self.critic = nn.Sequential(body, nn.Linear(64, 1))

    def forward(self, x):
        return self.actor(x), self.critic(x).squeeze(1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = TwoHeads()
    if fixed:
        params = list(dict.fromkeys([*model.actor.parameters(), *model.critic.parameters()]))
    else:
        params = list(model.actor.parameters()) + list(model.critic.parameters())   # BUG
    optimizer = torch.optim.Adam(params, lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            logits, value = model(xb)
            loss = nn.functional.cross_entropy(logits, yb) + \
                nn.functional.mse_loss(value, yb.float() / 9)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon

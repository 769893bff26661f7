"""A class-conditional flow-matching model trained for classifier-free guidance, whose
label dropout is inverted: each training label should be replaced by the "null" class with
probability eta = 0.1 (so the same network also learns the unconditional field), but the
mask keeps the label with probability eta instead, so nine labels in ten become the null
class. The conditional field is fitted on a tenth of the data; guided samples follow the
requested class far less often. The flow-matching loss falls as usual; nothing errors.

Reported: "fix sampling prob of null label" - https://github.com/eje24/iap-diffusion-labs/pull/3
(the course lab's solution drew the null label with probability 1 - eta instead of eta;
the maintainers merged the fix). Here: an MLP velocity field on the 8x8 digits (pixels in
[-1, 1]), the class (ten digits plus the null class) as a learned embedding, linear
Gaussian-to-data paths, guidance scale 3, 20 Euler steps. Fix: null where rand < eta.

Measured (600 Adam steps, batch 64, seed 0; a digit classifier trained on real digits,
0.92 held out, judges 100 samples per requested class): with guidance 3 the judged class is
the requested one for 0.72 of the bug's samples and 1.00 of the fixed twin's; without
guidance (scale 1, the conditional field alone) 0.36 against 0.96.

How watch finds it: the categorical-input hooks keep the ids of the class embedding's
first training lookups; 90% of them are its last row, the null class, where the recipes'
dropout puts 10-20% (CONDITION_MOSTLY_NULL, rules/null_condition_lookups.py; the twin's
share is about 10%).
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._cgan import CLASSES, judge
from benchmarks.real_bugs._common import batches, classification

TITLE = "fix sampling prob of null label"
LINK = "https://github.com/eje24/iap-diffusion-labs/pull/3"
EXPECTED = ("CONDITION_MOSTLY_NULL",)
STEPS = 600
ETA = 0.1
GUIDANCE = 3.0
EULER_STEPS = 20
PER_CLASS = 100
NULL = CLASSES


class VelocityField(nn.Module):
    def __init__(self):
        super().__init__()
        self.label = nn.Embedding(CLASSES + 1, 32)
        self.net = nn.Sequential(nn.Linear(64 + 32 + 1, 256), nn.SiLU(), nn.Linear(256, 256),
                                 nn.SiLU(), nn.Linear(256, 64))

    def forward(self, x, t, labels):
        return self.net(torch.cat([x, self.label(labels), t], 1))


def drop_labels(labels, fixed):
    draw = torch.rand(len(labels))
    null = draw < ETA if fixed else draw > ETA        # BUG: nulls with probability 1 - eta
    return torch.where(null, torch.full_like(labels, NULL), labels)


def sample(model, labels, guidance=GUIDANCE):
    x = torch.randn(len(labels), 64)
    nulls = torch.full_like(labels, NULL)
    for i in range(EULER_STEPS):
        t = torch.full((len(labels), 1), i / EULER_STEPS)
        conditional, free = model(x, t, labels), model(x, t, nulls)
        x = x + (free + guidance * (conditional - free)) / EULER_STEPS
    return x


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    scaled = x * 2 - 1
    model = VelocityField()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for data, labels in batches(scaled, y, steps):
            noise = torch.randn_like(data)
            t = torch.rand(len(data), 1)
            point = (1 - t) * noise + t * data
            optimizer.zero_grad()
            loss = F.mse_loss(model(point, t, drop_labels(labels, fixed)), data - noise)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    clf = judge(x, y)
    state = torch.random.get_rng_state()
    torch.manual_seed(9)
    with torch.no_grad():
        requested = torch.arange(CLASSES).repeat(PER_CLASS)
        images = ((sample(model, requested) + 1) / 2).clamp(0, 1)
        judged = clf(images).argmax(1)
        plain = ((sample(model, requested, guidance=1.0) + 1) / 2).clamp(0, 1)
        judged_plain = clf(plain).argmax(1)
    torch.random.set_rng_state(state)
    mon.class_match = (judged == requested).float().mean().item()
    mon.class_match_unguided = (judged_plain == requested).float().mean().item()
    return mon

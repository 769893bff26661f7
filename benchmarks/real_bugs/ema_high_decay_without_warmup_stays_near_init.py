"""An exponential moving average of the weights with a high decay and no warm-up (and no
bias correction): the copy starts as the network at initialisation and, at decay 0.999, still
holds 0.999**264 = 77% of those untrained weights after 264 steps. The averaged model, the one
that is validated and kept, is mostly the untrained network, and scores far below the
network it averages.

Reported: "EMA with high decay results in worse performance because of 1) no zero-init and
2) no debias." - https://github.com/huggingface/pytorch-image-models/issues/1182 (ModelEmaV2
with decay >= 0.99999 over ~25k fine-tuning iterations performs "worse than expected"; the
reporter fixed it with optax's zero-initialised, bias-corrected EMA; timm later added a
warm-up of the decay). Here the digits (80/20 split), an MLP, Adam at 3e-3, 12 epochs of 22
batches, an EMA at decay 0.999 updated after every step and validated every epoch (the
budget is 100 times shorter than the report's, so is the decay's horizon).
Fix: warm the decay up, ``decay = min(DECAY, (1 + n) / (10 + n))`` at update n (timm's
``warmup``, the diffusers / CompVis EMA), which averages the recent weights from the start.

Measured (held-out digits, the EMA's accuracy after the last step): 0.714 with the bug
against 0.947 for the fixed twin (the live network 0.950); seeds + 1000: 0.811 vs 0.953.
"""
import copy

import torch

from benchmarks.real_bugs._common import mlp
from benchmarks.real_bugs._ema import train_validating_ema
from benchmarks.real_bugs._swa import evaluate, split

TITLE = ("EMA with high decay results in worse performance because of 1) no zero-init "
         "and 2) no debias.")
LINK = "https://github.com/huggingface/pytorch-image-models/issues/1182"
EXPECTED = ("VALIDATION_NEVER_IMPROVED",)
EPOCH = 22           # batches of 64 in the training split
STEPS = 12 * EPOCH
DECAY = 0.999


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    data = split()
    model = mlp()
    ema = copy.deepcopy(model).eval()
    for p in ema.parameters():
        p.requires_grad_(False)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    updates = [0]

    @torch.no_grad()
    def update():
        n = updates[0]
        decay = min(DECAY, (1 + n) / (10 + n)) if fixed else DECAY   # BUG: no warm-up
        for e, p in zip(ema.state_dict().values(), model.state_dict().values()):
            e.mul_(decay).add_(p, alpha=1 - decay)
        updates[0] = n + 1

    mon = train_validating_ema(model, ema, optimizer, update, data, steps, EPOCH, watch)
    mon.ema_accuracy = evaluate(ema, data[2], data[3])[1]
    mon.model_accuracy = evaluate(model, data[2], data[3])[1]
    return mon

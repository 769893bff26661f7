"""A hand-written binary cross-entropy under float16 autocast guards ``log1p(-p)`` with
``p.clamp(max=1 - 1e-6)``, but ``p`` is a float16 tensor there and 1 - 1e-6 rounds to exactly
1.0 in float16 (its spacing below 1 is 2^-11 ~ 4.9e-4): the clamp does nothing. Once the
model is confident on a positive label (logit above ~8), ``p`` rounds to 1.0 and
``log1p(-p)`` is -inf. The forward stays finite - ``torch.where`` picks ``log(p)`` for
positives - but the backward sends a zero into ``log1p``'s derivative -1/(1 - p) = -inf,
and 0 * inf is NaN. The GradScaler finds the NaN, skips the optimizer step and halves its
scale, on every step where some positive is that confident: training silently stops as
soon as the model becomes good, and the loss printed each step looks normal.

Reported: "Fix NaN gradients from marginal_pair_consistency_loss in half precision" -
https://github.com/fastino-ai/GLiNER2/pull/155 ("That epsilon is not representable next to
1.0 in half precision ... so `1.0 - 1e-6` rounds to EXACTLY 1.0 and the clamp becomes a
no-op. A saturated probability then reaches 1.0 and `log1p(-1.0)` is -inf. The forward stays
finite ... Only the backward breaks ... Under fp16 the GradScaler absorbs it as skipped steps
and a collapsing loss scale rather than a crash"). Here the digits as ten one-vs-rest
sigmoid outputs, an MLP under torch.autocast("cpu", float16) with torch.amp.GradScaler.
Fix: compute the loss in float32 (``logits.float()``), where the clamp's epsilon exists.

Measured (300 steps, 297 held-out digits): 103 of the bug's 300 steps are skipped (the
scale falls from 65536 to 6e-27), its training loss over the last 20 steps is 0.047 and
rising against the fixed twin's 0.015, held-out accuracy 0.85 against 0.89; the fixed
twin skips none.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Fix NaN gradients from marginal_pair_consistency_loss in half precision"
LINK = "https://github.com/fastino-ai/GLiNER2/pull/155"
EXPECTED = ("NAN_BORN_IN_BACKWARD",)
STEPS = 300
HELD_OUT = 297       # the last rows of the digits, never trained on


def one_vs_rest_loss(logits, labels, fixed):
    if fixed:
        logits = logits.float()          # the fix: the loss in float32
    p = torch.sigmoid(logits)           # float16 under autocast when not fixed
    log_p = torch.log(p.clamp(min=1e-6))
    log_not_p = torch.log1p(-p.clamp(max=1 - 1e-6))   # BUG: 1 - 1e-6 == 1.0 in float16
    positive = nn.functional.one_hot(labels, 10).bool()
    return -torch.where(positive, log_p, log_not_p).float().mean()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    scaler = torch.amp.GradScaler("cpu")
    skipped = 0
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x[:-HELD_OUT], y[:-HELD_OUT], steps):
            optimizer.zero_grad()
            with torch.autocast("cpu", dtype=torch.float16):
                loss = one_vs_rest_loss(model(xb), yb, fixed)
            scaler.scale(loss).backward()
            scale = scaler.get_scale()
            scaler.step(optimizer)
            scaler.update()
            skipped += scaler.get_scale() < scale       # the scale backs off on a skip
            mon.step(loss)
    with torch.no_grad():
        mon.accuracy = round(float((model(x[-HELD_OUT:]).argmax(1) == y[-HELD_OUT:])
                                   .float().mean()), 3)
    mon.extra = {"skipped_steps": int(skipped), "final_scale": scaler.get_scale()}
    return mon

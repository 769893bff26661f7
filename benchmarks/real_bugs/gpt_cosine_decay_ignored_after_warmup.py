"""A small GPT's training loop computes its learning rate with linear warm-up only: after
WARMUP steps the rate stays at its peak for the rest of the run, although the config asks
for a cosine decay to zero over the run - the last steps take full-size Adam steps and the
model never settles into the minimum.

Reported: "ALB-079: CUDA trainer ignores lr_scheduler — constant lr after warmup" -
https://github.com/paiml/entrenar/issues/241 ("current_lr() only implements linear warmup.
After warmup completes, it returns base_lr (constant) regardless of the lr_scheduler:
"cosine" YAML config"; "Val loss plateau at 6.92 since step 12K strongly correlates with
constant lr"). Here a 2-block GPT on 32-character windows of the sonnets, AdamW with a peak
rate of 3e-3 after WARMUP steps. Fix: after the warm-up, decay the rate along a cosine to 0
at the last step.

Measured (held-out next-character cross-entropy in nats, 256 windows of the last 10% of
the text, after STEPS steps): bug 2.308 vs fixed 2.256; seeds + 1000:
2.280 vs 2.225.
"""
import math

import torch

import nndebug as nd
from benchmarks.real_bugs._common import text_windows
from benchmarks.real_bugs._gpt import GPT, LENGTH, held_out_loss, lm_loss, split_characters

TITLE = "ALB-079: CUDA trainer ignores lr_scheduler — constant lr after warmup"
LINK = "https://github.com/paiml/entrenar/issues/241"
EXPECTED = ("LR_SCHEDULER_NEVER_STEPPED",)
STEPS = 300
WARMUP = 30
PEAK = 3e-3


def current_lr(step, total, fixed):
    if step < WARMUP:
        return PEAK * (step + 1) / WARMUP
    if not fixed:
        return PEAK                      # BUG when not fixed: the cosine is never applied
    progress = (step - WARMUP) / max(1, total - WARMUP)
    return PEAK * 0.5 * (1 + math.cos(math.pi * progress))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held_out, vocab = split_characters()
    model = GPT(vocab)
    optimizer = torch.optim.AdamW(model.parameters(), lr=PEAK, weight_decay=0.1)
    with nd.watch(model, optimizer, **watch) as mon:
        for step, window in enumerate(text_windows(train, steps, length=LENGTH)):
            for group in optimizer.param_groups:
                group["lr"] = current_lr(step, steps, fixed)
            optimizer.zero_grad()
            loss = lm_loss(model, window)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.measured_held_out_loss = held_out_loss(model, held_out)
    return mon

"""A hand-written "linear warm-up, then cosine decay" schedule for a small GPT whose switch
between the two pieces never fires: the warm-up's line step / WARMUP is returned at every
step, so the learning rate keeps climbing past its peak for the whole run (10x the peak by
the end) instead of decaying.

Reported: "Fix Cosine with Warmup Scheduler" - https://github.com/erfanzar/eformer/pull/2
("I've been training LLMs with EasyDeL and noticed that my learning rates aren't warming up
and decaying properly when using the Cosine with Linear Warmup scheduler (it is always
warming up and never decaying)"). Here a 2-block GPT on 32-character windows of the sonnets,
AdamW with a peak rate of 2e-3 after WARMUP steps. Fix: after WARMUP steps, follow the cosine
from the peak down to a tenth of it at the last step.

Measured (held-out next-character cross-entropy in nats, 256 windows of the last 10% of
the text, after STEPS steps): bug 2.588 vs fixed 2.268; seeds + 1000:
2.482 vs 2.276.
"""
import math

import torch

import nndebug as nd
from benchmarks.real_bugs._common import text_windows
from benchmarks.real_bugs._gpt import GPT, LENGTH, held_out_loss, lm_loss, split_characters

TITLE = "Fix Cosine with Warmup Scheduler"
LINK = "https://github.com/erfanzar/eformer/pull/2"
EXPECTED = ("LR_GROWS_DURING_TRAINING",)
STEPS = 300
WARMUP = 30
PEAK = 2e-3


def warmup_cosine(step, total, fixed):
    if step < WARMUP or not fixed:       # BUG when not fixed: the warm-up line never ends
        return (step + 1) / WARMUP
    progress = (step - WARMUP) / max(1, total - WARMUP)
    return 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held_out, vocab = split_characters()
    model = GPT(vocab)
    optimizer = torch.optim.AdamW(model.parameters(), lr=PEAK, weight_decay=0.1)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: warmup_cosine(step, steps, fixed))
    with nd.watch(model, optimizer, **watch) as mon:
        for window in text_windows(train, steps, length=LENGTH):
            optimizer.zero_grad()
            loss = lm_loss(model, window)
            loss.backward()
            optimizer.step()
            scheduler.step()
            mon.step(loss)
    mon.measured_held_out_loss = held_out_loss(model, held_out)
    return mon

"""A small GPT's warm-up + cosine schedule is written as a LambdaLR whose lambda returns the
learning rate itself (max_lr x the warm-up / cosine factor) - but LambdaLR multiplies the
lambda's value by the optimizer's own lr, which is already max_lr: every step runs at
max_lr squared x the factor (3e-3 -> 9e-6 at the peak), and the model barely leaves its
initialisation.

Reported: "hotfix: lambdalr should return multiplicative factor and not the real lr." -
https://github.com/gao-hongnan/omniverse/issues/82 (the warm-up/cosine lambda of the
repository's GPT training code returned the learning rate instead of LambdaLR's
multiplicative factor). Here a 2-block GPT on 32-character windows of the sonnets, AdamW built
with lr=MAX_LR, WARMUP warm-up steps then a cosine to a tenth. Fix: return the factor only.

Measured (held-out next-character cross-entropy in nats, 256 windows of the last 10% of
the text, after STEPS steps): bug 4.185 vs fixed 2.244 (uniform over the
characters: ln 63 = 4.14); seeds + 1000: 4.138 vs 2.219.
"""
import math

import torch

import nndebug as nd
from benchmarks.real_bugs._common import text_windows
from benchmarks.real_bugs._gpt import GPT, LENGTH, held_out_loss, lm_loss, split_characters

TITLE = "hotfix: lambdalr should return multiplicative factor and not the real lr."
LINK = "https://github.com/gao-hongnan/omniverse/issues/82"
EXPECTED = ("LR_TOO_LOW",)
STEPS = 300
WARMUP = 30
MAX_LR = 3e-3


def factor(step, total):
    if step < WARMUP:
        return (step + 1) / WARMUP
    progress = (step - WARMUP) / max(1, total - WARMUP)
    return 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held_out, vocab = split_characters()
    model = GPT(vocab)
    optimizer = torch.optim.AdamW(model.parameters(), lr=MAX_LR, weight_decay=0.1)
    if fixed:
        lr_lambda = lambda step: factor(step, steps)
    else:                                # BUG: the rate, which LambdaLR multiplies by MAX_LR again
        lr_lambda = lambda step: MAX_LR * factor(step, steps)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)
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

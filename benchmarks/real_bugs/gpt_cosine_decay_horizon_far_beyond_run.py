"""A GPT-2-style language model's warm-up + cosine-annealing schedule is given a decay
horizon (max_step) far beyond the steps the run will take: after the warm-up the cosine has
barely started when training ends, so the rate stays at its peak throughout - the decay the
config asks for never happens, and the model ends on full-size steps.

Reported: "Cosine_annealing does not work" - https://github.com/OpenNMT/OpenNMT-tf/issues/378
("I train gpt2 use the following parameters, but cosine_annealing does not work after the
warmup step" with decay_params max_step: 10000000, warmup_steps: 8000; the maintainer: "The
learning rate will reach 0 when the step is max_step. So if this value is very large, it is
a very slow decay ... You should probably reduce max_step"). Here a 2-block GPT on
32-character windows of the sonnets, AdamW at a peak of 3e-3 after WARMUP steps, the cosine
horizon 1000x the run. Fix: max_step = the steps the run takes.

Measured (held-out next-character cross-entropy in nats, 256 windows of the last 10% of
the text, after STEPS steps): bug 2.308 vs fixed 2.256; seeds + 1000:
2.280 vs 2.225 (the rate the bug leaves is the constant peak of
gpt_cosine_decay_ignored_after_warmup, hence the same numbers).
"""
import math

import torch

import nndebug as nd
from benchmarks.real_bugs._common import text_windows
from benchmarks.real_bugs._gpt import GPT, LENGTH, held_out_loss, lm_loss, split_characters

TITLE = "Cosine_annealing does not work"
LINK = "https://github.com/OpenNMT/OpenNMT-tf/issues/378"
EXPECTED = ("SCHEDULE_LENGTH_MISMATCH",)
STEPS = 300
WARMUP = 30
PEAK = 3e-3


def warmup_cosine(step, max_step):
    if step < WARMUP:
        return (step + 1) / WARMUP
    progress = min(1.0, (step - WARMUP) / max(1, max_step - WARMUP))
    return 0.5 * (1 + math.cos(math.pi * progress))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held_out, vocab = split_characters()
    model = GPT(vocab)
    optimizer = torch.optim.AdamW(model.parameters(), lr=PEAK, weight_decay=0.1)
    max_step = steps if fixed else 1000 * steps      # BUG when not fixed: a horizon never reached
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: warmup_cosine(step, max_step))
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

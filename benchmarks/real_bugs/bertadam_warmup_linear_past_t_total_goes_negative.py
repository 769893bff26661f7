"""A BERT-style Adam whose learning-rate schedule lives inside the optimizer: ``lr *
warmup_linear(step / t_total)``, a linear warm-up over the first 10% and then ``1 -
progress``, a linear decay that reaches zero at ``t_total``. The training script sized
``t_total`` from the number of training EXAMPLES, but the loader serves FEATURES - each
example gives more than one (in the report, long SQuAD contexts split into several
windows) - so training runs past ``t_total``. From there ``1 - progress`` is negative: the
optimizer steps UP the gradient, harder every step, for the whole rest of training (here
the second half, down to -1 times the peak rate). The ``lr`` in ``param_groups`` stays the
positive peak value (the schedule is applied inside ``step``), nothing checks the sign, and
what the first half learned is unlearned.

Reported: "[Bug report] Learning rate of BertAdam may become negative" -
https://github.com/huggingface/transformers/issues/132 (pytorch-pretrained-bert's
BertAdam with ``warmup_linear``: "step could be larger than t_total, then lr becomes
negative"; found in run_squad.py, "which using number of training examples as total step,
but number of training features is reasonable"; the fix counts the features when sizing
``t_total``). Here: an MLP on the 8x8 digits where each of 1,300 training digits gives two
features (the digit and a copy shifted one pixel right), a BertAdam written by hand (no
bias correction, lr 1e-3, warm-up 0.1), batch 64, ``t_total`` from the examples (150
steps) while training takes 300; 497 digits held out. Fix: ``t_total`` from the features
(300).

Measured: seed 0, held-out accuracy 0.09 for the bug against 0.93 for the fixed
twin; seeds shifted by 1000, 0.10 against 0.93.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._opt171 import accuracy, batches, model, split

TITLE = "[Bug report] Learning rate of BertAdam may become negative"
LINK = "https://github.com/huggingface/transformers/issues/132"
EXPECTED = ("NEGATIVE_LEARNING_RATE", "SCHEDULE_LENGTH_MISMATCH")
STEPS = 300
LR, WARMUP, BATCH = 1e-3, 0.1, 64


def warmup_linear(progress, warmup=WARMUP):
    if progress < warmup:
        return progress / warmup
    return 1.0 - progress            # below zero once progress passes 1


class BertAdam(torch.optim.Optimizer):
    """Adam without bias correction, its rate scheduled inside ``step`` over ``t_total``."""

    def __init__(self, params, lr, t_total, betas=(0.9, 0.999), eps=1e-6):
        super().__init__(params, dict(lr=lr, t_total=t_total, betas=betas, eps=eps))

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    state["m"] = torch.zeros_like(p)
                    state["v"] = torch.zeros_like(p)
                m, v = state["m"], state["v"]
                m.mul_(beta1).add_(p.grad, alpha=1 - beta1)
                v.mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
                rate = group["lr"] * warmup_linear(state["step"] / group["t_total"])
                p.addcdiv_(m, v.sqrt().add_(group["eps"]), value=-rate)
                state["step"] += 1


def features(x, y):
    """Two features per example: the digit and a copy shifted one pixel to the right."""
    shifted = torch.roll(x.view(-1, 8, 8), 1, dims=2)
    shifted[:, :, 0] = 0
    return torch.cat([x, shifted.reshape(-1, 64)]), torch.cat([y, y])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = split()
    fx, fy = features(x, y)
    if fixed:
        t_total = steps                                  # counted from the features
    else:
        t_total = steps * len(x) // len(fx)              # BUG: from the examples (half)
    net = model()
    optimizer = BertAdam(net.parameters(), lr=LR, t_total=t_total)
    loss_fn = torch.nn.CrossEntropyLoss()
    with nd.watch(net, optimizer, **watch) as mon:
        for xb, yb in batches(fx, fy, steps, BATCH):
            optimizer.zero_grad()
            loss = loss_fn(net(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(net, x_held, y_held)
    return mon

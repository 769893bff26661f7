"""GSAM (surrogate-gap guided sharpness-aware minimisation) schedules its perturbation radius
with the learning rate: ``rho_t = rho_min + (rho_max - rho_min) * (lr - lr_min) / (lr_max -
lr_min)``, where ``lr_max`` and ``lr_min`` are the peak and the final LEARNING RATES (the
config's ``lr`` and ``linear_end * lr``). The training step handed it the schedule's
multiplier instead (``sched_fns[0](step)``, a number between 0 and 1), not the multiplier
times the base rate. Divided by ``lr_max - lr_min`` (about 1e-3), a multiplier near 1 makes
rho hundreds of times ``rho_max``: the "neighbourhood" whose worst point GSAM descends from
lies many weight norms away, the second gradient is taken at weights that have nothing
to do with the model's, and every update follows that gradient. Nothing fails: the loss is
computed at the real weights and the optimizer steps as ever.

Reported: "implement gsam in jax" -
https://github.com/google-research/big_vision/pull/8 (reviewing the GSAM trainer, the
reviewers' replication runs blew up: the loss went "up to hundreds, not millions" and "still
explodes after 1-2k step"; then "you did find a bug: learning_rate = sched_fns[0](step) #
Wrong / learning_rate = sched_fns[0](step) * config["lr"] # Your fix ... It doesn't
explode"). Here: an MLP on 1,300 of the 8x8 digits, GSAM written by hand around Adam (lr
1e-3, 30 warm-up steps then a linear decay to 0.01 of it, the gradient clipped to norm 1
as in the report's config), rho_max 0.1, rho_min 0.02, alpha 0.3; 497 digits held out.
Fix: hand GSAM the learning rate, the schedule's factor times the base rate.

Measured (held-out accuracy, 300 steps, batch 64): 0.16 with the bug, 0.89 fixed; seeds +
1000: 0.10 vs 0.90.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._opt171 import accuracy, batches, model, split

TITLE = "implement gsam in jax"
LINK = "https://github.com/google-research/big_vision/pull/8"
EXPECTED = ("LOSS_DIVERGING", "EXPLODING_GRADIENTS")
STEPS = 300
LR = 1e-3
WARMUP = 30
LINEAR_END = 0.01
RHO_MAX, RHO_MIN, ALPHA = 0.1, 0.02, 0.3
LR_MAX, LR_MIN = LR, LINEAR_END * LR


def schedule(step):
    """The schedule's factor (0..1): a linear warm-up, then a linear decay to LINEAR_END."""
    if step < WARMUP:
        return (step + 1) / WARMUP
    done = (step - WARMUP) / max(1, STEPS - WARMUP)
    return 1.0 - (1.0 - LINEAR_END) * done


def _flat_norm(tensors):
    return torch.sqrt(sum((t * t).sum() for t in tensors))


def gsam_gradients(net, loss_fn, xb, yb, lr):
    """The GSAM gradient written into the parameters' .grad; returns the clean loss."""
    params = [p for p in net.parameters()]
    loss = loss_fn(net(xb), yb)
    g_clean = torch.autograd.grad(loss, params)
    rho = RHO_MIN + (RHO_MAX - RHO_MIN) * (lr - LR_MIN) / (LR_MAX - LR_MIN)
    scale = rho / (_flat_norm(g_clean) + 1e-12)
    with torch.no_grad():
        for p, g in zip(params, g_clean):
            p.add_(g * scale)                               # to the worst point nearby
    g_robust = torch.autograd.grad(loss_fn(net(xb), yb), params)
    with torch.no_grad():
        for p, g in zip(params, g_clean):
            p.sub_(g * scale)                               # back to the weights
        robust_norm = _flat_norm(g_robust) + 1e-12
        projection = sum((gc * gr).sum() for gc, gr in zip(g_clean, g_robust)) / robust_norm
        for p, gc, gr in zip(params, g_clean, g_robust):
            residual = gc - projection * gr / robust_norm   # g_clean's part across g_robust
            p.grad = gr - ALPHA * residual
    return loss


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = split()
    net = model()
    opt = torch.optim.Adam(net.parameters(), lr=LR)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, schedule)
    loss_fn = torch.nn.CrossEntropyLoss()
    with nd.watch(net, opt, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(x, y, steps)):
            opt.zero_grad()
            factor = schedule(step)
            if fixed:
                learning_rate = factor * LR     # the learning rate GSAM's rho schedule expects
            else:
                learning_rate = factor          # BUG: the schedule's factor, not the rate
            loss = gsam_gradients(net, loss_fn, xb, yb, learning_rate)
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            opt.step()
            sched.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(net, x_held, y_held)
    return mon

"""A MAML loop whose outer (query) loss is computed from a prediction made BEFORE the inner
adaptation step: the learner's output is taken once, the inner step adapts the learner on
the support loss, and the "adapted" loss is then computed from the output taken earlier.
The adapted weights never reach the loss, so the meta-gradient is the plain gradient of the
pre-adaptation loss: meta-training silently becomes multi-task pretraining of one shared
regressor - for sine tasks with random amplitude and phase, the mean over tasks, close to a
flat line - and the initialisation it learns is not one that adapts well. The loss falls
and training looks healthy; only the few-shot adaptation at test time shows the failure.

Reported: "Parameters of cloned learner is not updating" -
https://github.com/learnables/learn2learn/issues/420 (the reporter's MAML loop takes
``proposal = learner()``, calls ``learner.adapt(loss)`` and computes the adaptation loss from
the same ``proposal``, printing the same value before and after adaptation every step; the
output must be recomputed from the adapted learner after ``adapt`` - the library's own
example does so). Here the MAML sine-regression benchmark (amplitude 0.1-5, phase 0-pi,
K=10 support and 10 query points per task, a 1-40-40-1 MLP, one inner SGD step at 0.01)
written with ``torch.func``: ``vmap`` over a meta-batch of 10 tasks of ``grad`` for the
inner step, ``functional_call`` for the forward passes, Adam at 1e-3 on the outer loss.
Fix: predict the query points with the adapted weights.

Measured (1500 meta-steps; held-out: 200 new tasks, each adapted with one inner step from
10 support points the same way for both runs, MSE on 50 query points; lower is better):
seed 0: 2.65 with the bug against 1.50 for the fixed twin; seeds shifted by 1000: 2.81
against 1.61 (predicting zero everywhere scores about 4.2).
"""
import math

import torch
from torch import nn
from torch.func import functional_call, grad, vmap

import nndebug as nd

TITLE = "Parameters of cloned learner is not updating"
LINK = "https://github.com/learnables/learn2learn/issues/420"
EXPECTED = ("ADAPTED_WEIGHTS_UNUSED",)
STEPS = 1500
TASKS, SHOTS, QUERIES, INNER_LR = 10, 10, 10, 0.01


def sine_tasks(n, points):
    """n sine tasks (amplitude 0.1-5, phase 0-pi) sampled at ``points`` x in [-5, 5]."""
    amplitude = 0.1 + 4.9 * torch.rand(n, 1, 1)
    phase = math.pi * torch.rand(n, 1, 1)
    x = 10 * torch.rand(n, points, 1) - 5
    return x, amplitude * torch.sin(x - phase)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(1, 40), nn.ReLU(), nn.Linear(40, 40), nn.ReLU(),
                          nn.Linear(40, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def support_loss(params, xs, ys):
        return nn.functional.mse_loss(functional_call(model, params, (xs,)), ys)

    def adapted(params, xs, ys):
        grads = grad(support_loss)(params, xs, ys)
        return {name: w - INNER_LR * grads[name] for name, w in params.items()}

    def query_loss(params, xs, ys, xq, yq):
        before = functional_call(model, params, (xq,))    # the learner's output, taken first
        fast = adapted(params, xs, ys)
        if fixed:
            after = functional_call(model, fast, (xq,))
        else:      # BUG: the "adapted" loss reads the output taken before adaptation
            after = before
        return nn.functional.mse_loss(after, yq)

    per_task = vmap(query_loss, in_dims=(None, 0, 0, 0, 0))
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            x, y = sine_tasks(TASKS, SHOTS + QUERIES)
            params = dict(model.named_parameters())
            loss = per_task(params, x[:, :SHOTS], y[:, :SHOTS], x[:, SHOTS:], y[:, SHOTS:]).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    x, y = sine_tasks(200, SHOTS + 50)
    params = {name: w.detach() for name, w in model.named_parameters()}
    fast = vmap(adapted, in_dims=(None, 0, 0))(params, x[:, :SHOTS], y[:, :SHOTS])
    pred = vmap(lambda p, xq: functional_call(model, p, (xq,)))(fast, x[:, SHOTS:])
    mon.held_out_adapted_mse = round(float(((pred - y[:, SHOTS:]) ** 2).mean()), 3)
    return mon

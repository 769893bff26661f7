"""A MAML inner loop that adapts a deep copy of the model by writing each step through
``param.data -= inner_lr * grad``. Writing through ``.data`` cuts the step out of autograd:
the adapted copy's weights are fresh leaves with no path back to the model, so the query
loss's ``backward()`` fills the copy's gradients and leaves every one of the model's own
``.grad`` at None. The outer optimizer (Adam, which skips parameters without a gradient)
steps on nothing: the meta-model never trains, while the printed query loss - the loss of
a freshly adapted copy - looks like a loss.

Reported: "MAML inner-loop `param.data -=` detaches the graph - the meta-model never
trains" - https://github.com/KanishJebaMathewM/Truxify/issues/13118 (the inner update
``param.data -= self.inner_lr * grad`` "detaches the inner step from the autograd graph.
The query loss graph therefore has no path back to self.model.parameters(), so
meta_loss.backward() leaves their .grad as None"; fixed by the merged pull request #13999
with a differentiable, functional inner step). Here 5-way 5-shot episodes of the digits
(labels remapped 0..4 per episode), an MLP, one inner step, 4 tasks per meta-batch, and
meta-test episodes drawn from 297 held-out digits. Fix: adapt functional fast weights,
``w - inner_lr * g`` with ``create_graph=True``, and run the query through them
(``torch.func.functional_call``).

Measured (150 meta-steps, 100 held-out 5-way episodes, one inner step): the bug's held-out
query accuracy after adaptation 0.44 (the model's weights the same as at the start: their
largest change 0.0); the fixed twin's 0.75.
"""
import copy

import numpy as np
import torch
from torch import nn
from torch.func import functional_call

import nndebug as nd
from benchmarks.real_bugs._common import classification

TITLE = "MAML inner-loop `param.data -=` detaches the graph — the meta-model never trains"
LINK = "https://github.com/KanishJebaMathewM/Truxify/issues/13118"
EXPECTED = ("NO_GRADIENT",)
STEPS = 150
HELD_OUT = 297
WAYS, SHOTS, QUERIES, TASKS = 5, 5, 10, 4
INNER_LR = 0.5


def episode(x, y, rng):
    """A 5-way episode: support (5 x 5) and query (5 x 10) rows, labels remapped 0..4."""
    classes = rng.choice(10, WAYS, replace=False)
    xs, ys, xq, yq = [], [], [], []
    for new, c in enumerate(classes):
        rows = rng.choice(np.flatnonzero(y.numpy() == c), SHOTS + QUERIES, replace=False)
        xs.append(x[rows[:SHOTS]]), xq.append(x[rows[SHOTS:]])
        ys += [new] * SHOTS
        yq += [new] * QUERIES
    return torch.cat(xs), torch.tensor(ys), torch.cat(xq), torch.tensor(yq)


def adapted_query_logits(model, xs, ys, xq, fixed):
    loss_fn = nn.functional.cross_entropy
    if fixed:
        params = dict(model.named_parameters())
        grads = torch.autograd.grad(loss_fn(functional_call(model, params, (xs,)), ys),
                                    list(params.values()), create_graph=True)
        fast = {n: p - INNER_LR * g for (n, p), g in zip(params.items(), grads)}
        return functional_call(model, fast, (xq,))
    learner = copy.deepcopy(model)
    grads = torch.autograd.grad(loss_fn(learner(xs), ys), list(learner.parameters()),
                                create_graph=True)
    for param, grad in zip(learner.parameters(), grads):
        param.data -= INNER_LR * grad                    # BUG: .data cuts the step out of autograd
    return learner(xq)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y = classification()
    order = torch.from_numpy(np.random.default_rng(0).permutation(len(x)))
    x, y = x[order], y[order]
    x_train, y_train, x_test, y_test = x[:-HELD_OUT], y[:-HELD_OUT], x[-HELD_OUT:], y[-HELD_OUT:]
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, WAYS))
    start = [p.detach().clone() for p in model.parameters()]
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            optimizer.zero_grad()
            meta_loss = 0.0
            for _ in range(TASKS):
                xs, ys, xq, yq = episode(x_train, y_train, rng)
                logits = adapted_query_logits(model, xs, ys, xq, fixed)
                meta_loss = meta_loss + nn.functional.cross_entropy(logits, yq) / TASKS
            meta_loss.backward()
            optimizer.step()
            mon.step(meta_loss)
    correct = []
    for _ in range(100):
        xs, ys, xq, yq = episode(x_test, y_test, rng)
        logits = adapted_query_logits(model, xs, ys, xq, fixed=True)
        correct.append(float((logits.argmax(1) == yq).float().mean()))
    mon.test_accuracy = round(sum(correct) / len(correct), 3)
    mon.largest_change = round(max(float((p.detach() - s).abs().max())
                                   for p, s in zip(model.parameters(), start)), 4)
    return mon

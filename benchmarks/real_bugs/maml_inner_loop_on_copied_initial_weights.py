"""MAML written the way ``higher.innerloop_ctx(model, inner_opt)`` runs at its default,
``copy_initial_weights=True``: the inner loop starts from a detached copy of the model's
weights, takes its differentiable steps from there, and runs the query through the adapted
copy. The query loss reaches the copies and stops: the model's own parameters - the
initialisation MAML is meant to learn - get no gradient at all (``.grad`` stays None), and
the meta-optimizer steps on nothing. The model itself is called on every step (through
``functional_call``), and the query loss of each freshly adapted copy still looks like a
training loss.

Reported: "Improving documentation for copy_initial_weights" -
https://github.com/facebookresearch/higher/issues/30 (the flag's documentation: "if true,
the weights of the patched module are copied to form the initial weights of the patched
module, and thus are not part of the gradient tape when unrolling the patched module. If
this is set to False, the actual module weights will be the initial weights of the patched
module. This is useful when doing MAML"; the library's MAML example passes
``copy_initial_weights=False``, and the maintainer opened higher#54, "As pointed out in #30,
the kwarg copy_initial_weights is hard to understand", to rename it). Here 5-way 5-shot digit
episodes, a small CNN, two inner steps, held-out meta-test episodes. Fix: start the inner
loop from the model's own parameters (``copy_initial_weights=False``).

Measured (150 meta-steps, 100 held-out episodes, two inner steps): the bug's adapted
query accuracy 0.35, the model's weights never moved (largest change 0.0); the fixed
twin's 0.86.
"""
import numpy as np
import torch
from torch import nn
from torch.func import functional_call

import nndebug as nd
from benchmarks.real_bugs._common import classification

TITLE = "Improving documentation for copy_initial_weights"
LINK = "https://github.com/facebookresearch/higher/issues/30"
EXPECTED = ("NO_GRADIENT",)
STEPS = 150
HELD_OUT = 297
WAYS, SHOTS, QUERIES, TASKS = 5, 5, 10, 4
INNER_LR, INNER_STEPS = 0.4, 2


def episode(x, y, rng):
    """A 5-way episode: support (5 x 5) and query (5 x 10) images, labels remapped 0..4."""
    classes = rng.choice(10, WAYS, replace=False)
    xs, ys, xq, yq = [], [], [], []
    for new, c in enumerate(classes):
        rows = rng.choice(np.flatnonzero(y.numpy() == c), SHOTS + QUERIES, replace=False)
        xs.append(x[rows[:SHOTS]]), xq.append(x[rows[SHOTS:]])
        ys += [new] * SHOTS
        yq += [new] * QUERIES
    return torch.cat(xs), torch.tensor(ys), torch.cat(xq), torch.tensor(yq)


def inner_loop(model, xs, ys, copy_initial_weights):
    params = dict(model.named_parameters())
    if copy_initial_weights:                             # BUG: higher's default, True
        params = {n: p.detach().clone().requires_grad_() for n, p in params.items()}
    for _ in range(INNER_STEPS):
        loss = nn.functional.cross_entropy(functional_call(model, params, (xs,)), ys)
        grads = torch.autograd.grad(loss, list(params.values()), create_graph=True)
        params = {n: p - INNER_LR * g for (n, p), g in zip(params.items(), grads)}
    return params


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y = classification(images=True)
    order = torch.from_numpy(np.random.default_rng(0).permutation(len(x)))
    x, y = x[order], y[order]
    x_train, y_train, x_test, y_test = x[:-HELD_OUT], y[:-HELD_OUT], x[-HELD_OUT:], y[-HELD_OUT:]
    model = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Flatten(), nn.Linear(16 * 16, 64), nn.ReLU(), nn.Linear(64, WAYS))
    start = [p.detach().clone() for p in model.parameters()]
    meta_optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, meta_optimizer, **watch) as mon:
        for _ in range(steps):
            meta_optimizer.zero_grad()
            meta_loss = 0.0
            for _ in range(TASKS):
                xs, ys, xq, yq = episode(x_train, y_train, rng)
                fast = inner_loop(model, xs, ys, copy_initial_weights=not fixed)
                query = nn.functional.cross_entropy(functional_call(model, fast, (xq,)), yq)
                meta_loss = meta_loss + query / TASKS
            meta_loss.backward()
            meta_optimizer.step()
            mon.step(meta_loss)
    correct = []
    for _ in range(100):
        xs, ys, xq, yq = episode(x_test, y_test, rng)
        fast = inner_loop(model, xs, ys, copy_initial_weights=False)
        logits = functional_call(model, fast, (xq,))
        correct.append(float((logits.argmax(1) == yq).float().mean()))
    mon.test_accuracy = round(sum(correct) / len(correct), 3)
    mon.largest_change = round(max(float((p.detach() - s).abs().max())
                                   for p, s in zip(model.parameters(), start)), 4)
    return mon

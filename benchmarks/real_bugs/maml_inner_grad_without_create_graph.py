"""A meta-learner whose inner-loop gradients are taken with ``torch.autograd.grad(loss,
fast_weights)`` and no ``create_graph=True``. The gradients come back as constants, so the
adapted weights ``w - lr * g`` depend on the initial weights only through the identity
term: the meta-gradient is the first-order approximation, every second-order term (how the
inner steps themselves would change if the initialisation moved) silently dropped. The run
trains, a little worse and slower, with no error.

Reported: "Bug fix" - https://github.com/kjaved0/mrcl/issues/15 (the OML authors' answer:
"First step is to set create_graph=True in the torch.autograd.grad function. Without this
flag, the second order gradients are never computed and the code uses the first-order
approximation -- far from ideal ... Computing the correct gradients significantly decreases
the time to convergence on the two benchmarks"; the same report on ANML,
uvm-neurobotics-lab/ANML#3). Here MAML with five inner steps on 5-way 5-shot digit
episodes, an MLP, held-out meta-test episodes. Fix: ``create_graph=True``.

Measured (150 meta-steps, 100 held-out episodes, five first-order inner steps at test
time for both): the bug's adapted query accuracy 0.85, the fixed twin's 0.90 - a modest
loss here, as the reporters found it (slower convergence, not failure).
"""
import numpy as np
import torch
from torch import nn
from torch.func import functional_call

import nndebug as nd
from benchmarks.real_bugs._common import classification

TITLE = "Bug fix"
LINK = "https://github.com/kjaved0/mrcl/issues/15"
EXPECTED = ("LOSS_TERM_WITHOUT_GRADIENT",)
STEPS = 150
HELD_OUT = 297
WAYS, SHOTS, QUERIES, TASKS = 5, 5, 10, 4
INNER_LR, INNER_STEPS = 0.3, 5


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


def adapt(model, xs, ys, second_order):
    fast = dict(model.named_parameters())
    for _ in range(INNER_STEPS):
        loss = nn.functional.cross_entropy(functional_call(model, fast, (xs,)), ys)
        grads = torch.autograd.grad(loss, list(fast.values()),
                                    create_graph=second_order)   # BUG: no create_graph=True
        fast = {n: w - INNER_LR * g for (n, w), g in zip(fast.items(), grads)}
    return fast


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y = classification()
    order = torch.from_numpy(np.random.default_rng(0).permutation(len(x)))
    x, y = x[order], y[order]
    x_train, y_train, x_test, y_test = x[:-HELD_OUT], y[:-HELD_OUT], x[-HELD_OUT:], y[-HELD_OUT:]
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, WAYS))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            optimizer.zero_grad()
            meta_loss = 0.0
            for _ in range(TASKS):
                xs, ys, xq, yq = episode(x_train, y_train, rng)
                fast = adapt(model, xs, ys, second_order=fixed)
                query = nn.functional.cross_entropy(functional_call(model, fast, (xq,)), yq)
                meta_loss = meta_loss + query / TASKS
            meta_loss.backward()
            optimizer.step()
            mon.step(meta_loss)
    correct = []
    for _ in range(100):
        xs, ys, xq, yq = episode(x_test, y_test, rng)
        logits = functional_call(model, adapt(model, xs, ys, second_order=False), (xq,))
        correct.append(float((logits.argmax(1) == yq).float().mean()))
    mon.test_accuracy = round(sum(correct) / len(correct), 3)
    return mon

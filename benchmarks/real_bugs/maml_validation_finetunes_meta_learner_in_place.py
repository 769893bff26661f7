"""A MAML script whose validation fine-tunes the meta-learner itself. To score the current
initialisation it builds ``SGD(model.parameters())`` and takes a few steps on each
validation episode's support set - on the model, not on a copy - so every validation pass
writes task-specific fine-tuning into the meta-learned weights, episode after episode, and
meta-training resumes from wherever the last validation task left them. The printed
validation accuracy is also no longer the initialisation's: each episode starts from
weights already fine-tuned on the episodes before it.

Reported: "Is it appropriate to update the parameters of meta-learner during testing?" -
https://github.com/dragen1860/MAML-Pytorch/issues/6 ("While testing, your code still
updates the parameters of meta-learner"; the author: "thanks. I have make a modification"
- the fine-tuning moved onto a deep copy; the reporter: "The accuracy of your
implementation after modification drops by 10 percent" - the in-place version had been
scoring weights trained on the earlier test tasks). Here MAML (one differentiable inner
step) on 5-way 5-shot digit episodes, an MLP, a validation pass every 25 meta-steps with
10 episodes of 10 SGD steps each. Fix: fine-tune ``copy.deepcopy(model)``.

Measured (200 meta-steps; ``test_accuracy``: a clean evaluation on 100 held-out episodes,
each fine-tuned on a copy): the bug's 0.68 (its last validation pass printed 0.63), the
fixed twin's 0.90 (printed 0.88): the fine-tuning written into the initialisation every 25
steps costs a fifth of the accuracy.
"""
import copy

import numpy as np
import torch
from torch import nn
from torch.func import functional_call

import nndebug as nd
from benchmarks.real_bugs._common import classification

TITLE = "Is it appropriate to update the parameters of meta-learner during testing?"
LINK = "https://github.com/dragen1860/MAML-Pytorch/issues/6"
EXPECTED = ("WEIGHTS_REWRITTEN_OUTSIDE_OPTIMIZER",)
STEPS = 200
HELD_OUT = 297
WAYS, SHOTS, QUERIES, TASKS = 5, 5, 10, 4
INNER_LR = 0.5
VALIDATE_EVERY, VALIDATION_EPISODES, FINETUNE_STEPS, FINETUNE_LR = 25, 10, 10, 0.1


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


def query_loss(model, xs, ys, xq, yq):
    params = dict(model.named_parameters())
    grads = torch.autograd.grad(nn.functional.cross_entropy(functional_call(model, params, (xs,)), ys),
                                list(params.values()), create_graph=True)
    fast = {n: p - INNER_LR * g for (n, p), g in zip(params.items(), grads)}
    return nn.functional.cross_entropy(functional_call(model, fast, (xq,)), yq)


def finetuned_accuracy(learner, xs, ys, xq, yq):
    inner = torch.optim.SGD(learner.parameters(), lr=FINETUNE_LR)
    for _ in range(FINETUNE_STEPS):
        inner.zero_grad()
        nn.functional.cross_entropy(learner(xs), ys).backward()
        inner.step()
    with torch.no_grad():
        return float((learner(xq).argmax(1) == yq).float().mean())


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y = classification()
    order = torch.from_numpy(np.random.default_rng(0).permutation(len(x)))
    x, y = x[order], y[order]
    x_train, y_train, x_test, y_test = x[:-HELD_OUT], y[:-HELD_OUT], x[-HELD_OUT:], y[-HELD_OUT:]
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, WAYS))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    reported = []
    with nd.watch(model, optimizer, **watch) as mon:
        for step in range(1, steps + 1):
            optimizer.zero_grad()
            meta_loss = sum(query_loss(model, *episode(x_train, y_train, rng))
                            for _ in range(TASKS)) / TASKS
            meta_loss.backward()
            optimizer.step()
            mon.step(meta_loss)
            if step % VALIDATE_EVERY == 0:
                scores = []
                for _ in range(VALIDATION_EPISODES):
                    learner = copy.deepcopy(model) if fixed else model   # BUG: fine-tunes the meta-learner
                    scores.append(finetuned_accuracy(learner, *episode(x_test, y_test, rng)))
                reported.append(sum(scores) / len(scores))
    scores = [finetuned_accuracy(copy.deepcopy(model), *episode(x_test, y_test, rng))
              for _ in range(100)]
    mon.test_accuracy = round(sum(scores) / len(scores), 3)
    mon.reported_accuracy = round(reported[-1], 3)
    return mon

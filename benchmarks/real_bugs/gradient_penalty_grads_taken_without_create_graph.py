"""An inter-environment gradient alignment (IGA) penalty built from gradients taken with
torch.autograd.grad without create_graph=True: the gradients come back as constants with
no graph, so the penalty (their spread across environments) is a number added to the loss
that no weight can move. The model trains on the plain risk alone; the penalty weight, the
method's one knob, changes nothing.

Reported: "IGA implementation" - https://github.com/facebookresearch/DomainBed/issues/50
("I believe there is a small error: a "create_graph" is missing when calling autograd.grad.
In details, with the current implementation the penalty_value is useless in the training
... Another proof is the lack of impact of the hyper-parameter self.hparams['penalty']";
fixed by the merged pull request "create_graph patch to IGA", facebookresearch/DomainBed#51).
Here an MLP classifies the digits in two training environments whose ten extra input
features name the label (90% and 75% of the time: a shortcut), IGA-penalised as in the
report with weight 3; a third environment where they name it 10% of the time scores it.
Fix: create_graph=True in both autograd.grad calls.

Measured (300 steps): the bug's weights after training are the same at penalty weights 1, 3,
10 and 100 (accuracy 0.858 on the shifted environment each time: the method's one knob
does nothing); the penalty's own quantity, the squared spread of the two environments'
gradients averaged over the last 50 steps, is 0.063 for the bug and 0.047 for the fixed
twin (0.063 and 0.045 with seeds shifted by 1000). The twin's shifted accuracy is 0.833
(0.866 at shift 1000): on this task the penalty does not buy accuracy, so the harm
measured is the regulariser silently not applied, not a worse score.
"""
import torch
from torch import autograd, nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "IGA implementation"
LINK = "https://github.com/facebookresearch/DomainBed/issues/50"
EXPECTED = ("LOSS_TERM_WITHOUT_GRADIENT",)
STEPS = 300
SHORTCUT_RATES = (0.9, 0.75)
TEST_RATE = 0.1
PENALTY = 3.0


def with_shortcut(x, y, rate, seed):
    """The pixels and ten features naming the label with probability ``rate`` (a random
    class otherwise)."""
    generator = torch.Generator().manual_seed(seed)
    named = torch.where(torch.rand(len(y), generator=generator) < rate, y,
                        torch.randint(0, 10, y.shape, generator=generator))
    return torch.cat([x, nn.functional.one_hot(named, 10).float()], dim=1)


def environments():
    x, y = classification()
    order = torch.randperm(len(y), generator=torch.Generator().manual_seed(0))
    x, y = x[order], y[order]
    parts = torch.tensor_split(torch.arange(len(y)), 3)
    rates = SHORTCUT_RATES + (TEST_RATE,)
    return [(with_shortcut(x[p], y[p], rate, seed=i), y[p])
            for i, (p, rate) in enumerate(zip(parts, rates))]


def iga_loss(model, minibatches, fixed):
    params = list(model.parameters())
    grads, total = [], 0.0
    for x, y in minibatches:
        env_loss = nn.functional.cross_entropy(model(x), y)
        total = total + env_loss
        grads.append(autograd.grad(env_loss, params, retain_graph=True,
                                   create_graph=fixed))          # BUG: no create_graph
    mean_loss = total / len(minibatches)
    mean_grad = autograd.grad(mean_loss, params, retain_graph=True, create_graph=fixed)
    penalty = 0.0
    for env_grads in grads:
        for g, mean_g in zip(env_grads, mean_grad):
            penalty = penalty + (g - mean_g).pow(2).sum()
    return mean_loss + PENALTY * penalty, float(penalty)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, test = environments()[:2], environments()[2]
    model = nn.Sequential(nn.Linear(74, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    streams = [batches(x, y, steps, seed=i) for i, (x, y) in enumerate(train)]
    spreads = []
    with nd.watch(model, optimizer, **watch) as mon:
        for minibatches in zip(*streams):
            loss, spread = iga_loss(model, minibatches, fixed)
            spreads.append(spread)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.shifted_accuracy = round(float((model(test[0]).argmax(1) == test[1])
                                           .float().mean()), 3)
    mon.gradient_spread = round(sum(spreads[-50:]) / len(spreads[-50:]), 4)
    return mon

"""Behaviour cloning of a discrete-action expert whose loss is the mean log-probability the
policy gives the expert's actions, with the minus sign of the negative log-likelihood left
off. Minimising it drives the expert's action toward probability zero: the policy learns
to do anything BUT what the expert did. The loss falls steadily (toward minus infinity,
as the logits of the other actions grow), the optimizer runs without complaint, and a
curve of "loss going down" reads as learning.

Reported: "Missing (-1) in the loss function in BC" -
https://github.com/uidilr/gail_ppo_tf/issues/17 (the behaviour-cloning loss in
algo/behavior_clone.py summed the log-probabilities of the expert's actions and handed
that to the minimiser; the reporter asked for ``-loss``, the author confirmed and fixed
it). Here the 8x8 digits stand for observations and their labels for the expert's action
(10 discrete actions); an MLP policy, Adam 1e-3, batches of 64. Fix: minimise the negative
mean log-probability.

Measured (agreement of the policy's greedy action with the expert's on 297 held-out
observations; chance 0.10): seed 0: 0.11 with the bug against 0.94 fixed; seeds shifted by
1000: 0.08 against 0.94. The bug run's loss falls without a floor as the other actions'
logits grow.
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Missing (-1) in the loss function in BC"
LINK = "https://github.com/uidilr/gail_ppo_tf/issues/17"
EXPECTED = ("LOSS_SIGN_FLIPPED", "LOSS_UNBOUNDED_BELOW")
STEPS = 400


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    order = torch.randperm(len(x))
    train, held = order[:1500], order[1500:]
    policy = mlp(64, 64, 10)
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)
    with nd.watch(policy, optimizer, **watch) as mon:
        for obs, expert_action in batches(x[train], y[train], steps, seed=0):
            log_prob = F.log_softmax(policy(obs), dim=1)
            chosen = log_prob.gather(1, expert_action[:, None]).mean()
            loss = -chosen if fixed else chosen    # BUG: the likelihood minimised
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        mon.held_out_agreement = (policy(x[held]).argmax(1) == y[held]).float().mean().item()
    return mon

"""The DQN regresses the whole Q-vector onto a target vector that starts from zeros and
has only the taken action's entry filled with ``r + gamma * max Q_target(s')``: every
action NOT taken in a replayed transition is trained toward Q = 0. The Q-value of an action
becomes (roughly) how often it is taken times its real value, so the greedy policy follows
the behaviour policy's habits and a positive-reward task's values are crushed toward zero.

Silent: the loss is a plain MSE between the network's output and a constant target of the
same shape; zeros are a legal value for Q; it falls like any regression.

Reported: "Over-estimate the loss from ALL action space?" -
https://github.com/PacktPublishing/Tensorflow-2-Reinforcement-Learning-Cookbook/issues/32
(chapter 3's DQN builds ``targets`` of shape (batch, action_dim) filled with zeros and sets
only the taken actions' entries before ``model.fit``, so the TD error is computed for every
action, the untaken ones against 0; the fix the reporter gives: start the targets from
``model.predict(states)`` so untaken actions' errors are zero).

Here: the shared digit-chain DQN (``_value_rl``: name the 8x8 digit for 0.5 and carry on,
or cash out for 1 and stop; 32 environments, a replay of every transition, a 128-row batch
per step, target synced every 25 steps), with the loss written as MSE over all eleven
Q-values. Fix: the target vector starts from the network's own (detached) Q-values.

**Measured** (300 steps, mean greedy return on 256 held-out chains, 1.0 = cash out at
once): seed 0: 1.00 for the bug (it cashes out on every first digit) against 3.03 for the
fixed twin; seeds shifted by 1000: 1.00 against 3.24.
"""
import torch
from torch.nn import functional as F

from benchmarks.real_bugs import _value_rl as rl

TITLE = "Over-estimate the loss from ALL action space?"
LINK = "https://github.com/PacktPublishing/Tensorflow-2-Reinforcement-Learning-Cookbook/issues/32"
EXPECTED = ("UNTAKEN_ACTIONS_REGRESSED_TO_ZERO",)
STEPS = 300


def full_vector_loss(fixed):
    def loss(online, batch, goal):
        q = online(batch["s"])
        if fixed:
            targets = q.detach().clone()        # untaken actions: no error
        else:
            targets = torch.zeros_like(q)       # BUG: untaken actions trained toward 0
        targets[torch.arange(len(goal)), batch["a"]] = goal
        return F.mse_loss(q, targets)
    return loss


def run(fixed=False, steps=STEPS, **watch):
    return rl.train(steps, watch, loss=full_vector_loss(fixed))

"""An "actor-critic" whose policy loss weighs each log-probability by the standardised
return alone, ``-(returns * log_prob_actions).sum()``, while the critic is trained on its
own smooth-L1 loss: the critic's values never reach the actor, so the agent is plain
REINFORCE with a batch-mean baseline and a value network trained for nothing. The
per-state baseline that gives actor-critic its lower variance is lost.

Reported: "actor critic possible error" - https://github.com/bentrevett/pytorch-rl/issues/2
(the tutorial's update_policy computes ``policy_loss = - (returns * log_prob_actions).sum()``
and ``value_loss = F.smooth_l1_loss(returns, values).sum()``; the reporter: "the critic
does not affect the agent at all"; the author: "You are correct, the two are independent
of each other, which is an error", the policy loss should use the predicted values). Here
the tutorial's update on the NumPy cart-pole of benchmarks/real_bugs/_policy_gradient.py:
separate 4-32-2 actor and 4-32-1 critic in one module, Adam at 1e-2, four episodes per
update, returns to go at gamma 0.99 standardised, two backward calls then one step. Fix:
the advantage ``returns - values.detach()`` in the policy loss.

Measured (held-out: the greedy policy's mean episode length over 50 starts no training
episode began from, cut at 200), 150 updates: the bug's agent lasts 186.1 steps, the fixed
twin 200.0; seeds + 1000: 109.6 against 200.0 (at 80 updates neither seed showed harm; at
120, seed 0 none and seeds + 1000 176.4 against 200.0). Slow for the benchmark: the two
runs take ~50 s on one shared core.
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._pg_tutorials import ActorCritic, CartPoles, held_out_length, \
    play, returns_to_go

TITLE = "actor critic possible error"
LINK = "https://github.com/bentrevett/pytorch-rl/issues/2"
EXPECTED = ("POLICY_WEIGHT_NOT_DETACHED",)
STEPS = 150
EPISODES, GAMMA = 4, 0.99


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    env = CartPoles(EPISODES, seed=0)
    model = ActorCritic(hidden=32)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            batch = play(env, model, EPISODES)
            alive, values, log_probs = batch["alive"], batch["values"], batch["log_probs"]
            returns = returns_to_go(batch["rewards"], GAMMA)
            kept = alive.bool()
            returns = ((returns - returns[kept].mean()) / (returns[kept].std() + 1e-8)).detach()
            if fixed:       # the critic's value as the baseline
                weights = returns - values.detach()
            else:           # BUG: the returns alone; the critic never reaches the actor
                weights = returns
            policy_loss = -(weights * log_probs * alive).sum() / EPISODES
            value_loss = (F.smooth_l1_loss(values, returns, reduction="none")
                          * alive).sum() / EPISODES
            optimizer.zero_grad()
            policy_loss.backward()
            value_loss.backward()
            optimizer.step()
            mon.step(policy_loss + value_loss)
    mon.held_out_length = held_out_length(model)
    return mon

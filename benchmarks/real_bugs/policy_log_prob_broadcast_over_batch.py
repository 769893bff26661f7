"""The policy's log-probabilities are taken of a column of actions, ``(B, 1)``, against a
distribution of batch ``B``: torch broadcasts the two into a ``(B, B)`` table, the
log-probability of every sampled action under every state, and the loss weighs each
column by that action's reward. Every state is pushed toward every rewarded action of the
batch: the policy learns which actions pay on average and nothing about which state asks
for which.

Reported: "issue when calculating the `log_probs` in EUPG." -
https://github.com/LucasAlegre/morl-baselines/issues/88 ("the size of `actions` is
[200,1], and the size of `current_distribution` is [200,2]. But the size of `log_probs` is
[200,200]. I suggest to use `current_distribution.log_prob(actions.squeeze())`"; the
maintainer: "it seems there is something off there"). Here a contextual bandit on the
8x8 digits: the state is a digit's image, the ten actions are its classes, the reward is
1 for naming the digit. A REINFORCE policy with a mean-reward baseline. Fix: take
``log_prob`` of the actions as a vector of ``B`` (``actions.squeeze(1)``).

How watch finds it: reading the loss's graph at ``backward`` on the first recorded steps,
the policy-gradient product picks 64 x 64 log-probabilities from a distribution over 64
states (the gather after a broadcast): LOG_PROB_BROADCAST. The fixed twin picks 64.
"""
import torch
from torch.distributions import Categorical

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "issue when calculating the `log_probs` in EUPG."
LINK = "https://github.com/LucasAlegre/morl-baselines/issues/88"
EXPECTED = ("LOG_PROB_BROADCAST",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    policy = mlp()
    optimizer = torch.optim.Adam(policy.parameters(), lr=3e-3)
    mon = None
    with nd.watch(policy, optimizer, **watch) as mon:
        for states, labels in batches(x, y, steps):
            dist = Categorical(logits=policy(states))
            actions = dist.sample().unsqueeze(1)               # stored as a column (B, 1)
            rewards = (actions.squeeze(1) == labels).float()
            advantages = rewards - rewards.mean()
            # BUG: log_prob of (B, 1) actions against a batch-B distribution is (B, B)
            log_probs = dist.log_prob(actions.squeeze(1) if fixed else actions)
            loss = -(log_probs * advantages).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.final_reward = rewards.mean().item()
    return mon

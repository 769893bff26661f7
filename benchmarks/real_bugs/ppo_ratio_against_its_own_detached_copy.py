"""PPO's probability ratio divides the policy by a detached copy of ITSELF, computed in the
same update from the same parameters (``exp(log_prob - log_prob.detach())``), instead of by
the behaviour policy that sampled the actions. The ratio is exactly 1 on every minibatch of
every epoch, so the clip never acts: the many epochs PPO makes over each rollout become
plain, unclipped policy-gradient steps on the same data, and the policy runs far from the
one that collected it, onto the actions it happened to favour.

Reported: "Possible bug: prob_ratio always 1" -
https://github.com/tensorforce/tensorforce/issues/312 (the reporter printed the ratio
"between old and new policy in PG methods and this is always exactly 1 for me ... after
going through several mini batches the two distributions should certainly a little
different"; the code computed the "fixed" log-probability from the current distribution's
parameters under a stop-gradient, and the reporter proposed caching the old (sampling)
distribution's parameters). Here PPO with the clipped surrogate on a contextual bandit over
the 8x8 digits (the state a digit, the actions its ten classes, reward 1 for naming it):
rollouts of 256 states, 10 epochs of 4 minibatches over each, advantages standardised.
Fix: keep the log-probabilities the sampling policy gave (computed under no_grad at the
rollout) and divide by those.

Measured (300 steps, reward of the last 3 rollouts): the bug's agent names 0.19 of the
digits, the fixed twin 0.76 (seeds shifted by 1000: 0.09 and 0.78; by 2000: 0.18 and 0.78).

How watch finds it: the loss's graph holds ``exp(log_prob - constant)`` over picked
log-probabilities; on a few recorded steps the monitor reads that ratio when
``loss.backward()`` is called. It is exactly 1 in every entry on every one of them, after
optimizer steps too, where a healthy loop's ratio is 1 on a rollout's first minibatch only
(PPO_RATIO_ALWAYS_ONE).
"""
import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

import nndebug as nd
from benchmarks.real_bugs._common import classification

TITLE = "Possible bug: prob_ratio always 1"
LINK = "https://github.com/tensorforce/tensorforce/issues/312"
EXPECTED = ("PPO_RATIO_ALWAYS_ONE",)
STEPS = 300
ROLLOUT, EPOCHS, MINIBATCH, CLIP = 256, 10, 64, 0.2


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y = classification()
    policy = nn.Sequential(nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 10))
    optimizer = torch.optim.Adam(policy.parameters(), lr=3e-3)
    done, paid = 0, []
    with nd.watch(policy, optimizer, **watch) as mon:
        while done < steps:
            rows = torch.from_numpy(rng.integers(0, len(x), ROLLOUT))
            states, labels = x[rows], y[rows]
            with torch.no_grad():                          # the rollout
                behaviour = Categorical(logits=policy(states))
                actions = behaviour.sample()
                sampled_log_probs = behaviour.log_prob(actions)
            rewards = (actions == labels).float()
            paid.append(rewards.mean().item())
            advantages = (rewards - rewards.mean()) / (rewards.std() + 1e-8)
            for _ in range(EPOCHS):
                for batch in torch.from_numpy(rng.permutation(ROLLOUT)).split(MINIBATCH):
                    log_probs = Categorical(logits=policy(states[batch])).log_prob(actions[batch])
                    if fixed:
                        old_log_probs = sampled_log_probs[batch]
                    else:
                        old_log_probs = log_probs.detach()   # BUG: the current policy again
                    ratio = torch.exp(log_probs - old_log_probs)
                    surrogate = torch.min(ratio * advantages[batch],
                                          ratio.clamp(1 - CLIP, 1 + CLIP) * advantages[batch])
                    loss = -surrogate.mean()
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                    mon.step(loss)
                    done += 1
                    if done == steps:
                        break
                if done == steps:
                    break
    mon.final_reward = float(np.mean(paid[-3:]))
    return mon

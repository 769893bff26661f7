"""REINFORCE weighs the log-probability of every action of an episode by the episode's
whole discounted return ``G_0`` instead of the return that followed that action, ``G_t``:
the loss is ``sum_t -log pi(a_t|s_t) * G_0``. An action taken in the last steps, just
before the pole fell, is credited with everything the episode earned before it was taken,
so the actions that ended a long episode are pushed up as hard as the ones that kept it
going; what a step contributed is lost and the gradient's noise grows with the episode.

Reported: "Fix and improve unit5 REINFORCE computation of the returns" -
https://github.com/huggingface/deep-rl-class/pull/95 (merged; first filed as PR #70, "Fix
unit5 reinforce implementation"): the course's REINFORCE summed the discounted rewards
into one number ``R`` and appended ``-log_prob * R`` for every step; the author: it
"computes the policy loss considering only the return G_0 ... However, the reinforce
algorithm requires to compute the returns G_t for all t"; the course's update now
computes the returns to go backwards and standardises them. (The same report against Udacity's
REINFORCE notebook: udacity/deep-reinforcement-learning#42.) Here the course's setting on a
cart-pole written out in NumPy (benchmarks/real_bugs/_policy_gradient.py): a 4-16-2 policy,
Adam at 1e-2, gamma 1.0, four episodes per update. Fix: weigh step t by ``G_t``, the
returns to go standardised over the update's steps.

Measured (held-out: the greedy policy's mean episode length over 50 starts no training
episode began from, cut at 200): 200 updates (about 800
episodes): the bug's agent lasts 119.2 steps, the fixed twin 200.0 (every held-out episode
to the cut). Seeds shifted by 1000: 153.8 against 199.2 (by 2000: 42.6 against 200.0).
"""
import numpy as np
import torch
from torch.distributions import Categorical

import nndebug as nd
from benchmarks.real_bugs._policy_gradient import CartPoles, MAX_STEPS, held_out_length, \
    policy_net

TITLE = "Fix and improve unit5 REINFORCE computation of the returns"
LINK = "https://github.com/huggingface/deep-rl-class/pull/95"
EXPECTED = ("EPISODE_RETURN_CREDITED_TO_EVERY_STEP",)
STEPS = 200
EPISODES, GAMMA = 4, 1.0


def play(env, policy):
    """One episode on each copy of ``env``: the log-probabilities of the actions taken,
    the rewards and which steps each episode was still running, all (T, EPISODES)."""
    observations = env.observe()
    log_probs, rewards, alive = [], [], []
    running = np.ones(EPISODES, dtype=bool)
    for _ in range(MAX_STEPS):
        dist = Categorical(logits=policy(observations))
        actions = dist.sample()
        alive.append(torch.from_numpy(running.astype(np.float32)))
        log_probs.append(dist.log_prob(actions))
        observations, reward, dones = env.step(actions.numpy())
        rewards.append(torch.from_numpy(reward) * alive[-1])
        running &= ~dones          # a copy that finished restarts, but its steps are masked
        if not running.any():
            break
    return torch.stack(log_probs), torch.stack(rewards), torch.stack(alive)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    env = CartPoles(EPISODES, seed=0)
    policy = policy_net(hidden=16)
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
    with nd.watch(policy, optimizer, **watch) as mon:
        for _ in range(steps):
            log_probs, rewards, alive = play(env, policy)
            if fixed:                                # G_t: what followed each action
                running, returns = torch.zeros(EPISODES), []
                for t in reversed(range(len(rewards))):
                    running = rewards[t] + GAMMA * running
                    returns.insert(0, running)
                returns = torch.stack(returns)
                kept = alive.bool()
                weights = (returns - returns[kept].mean()) / (returns[kept].std() + 1e-8)
            else:       # BUG: the episode's whole discounted return, G_0, for every step
                discounts = GAMMA ** torch.arange(len(rewards), dtype=torch.float32)
                weights = (discounts[:, None] * rewards).sum(0, keepdim=True)
                weights = weights.expand_as(rewards)
            loss = -(log_probs * weights * alive).sum() / EPISODES
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_length = held_out_length(policy)
    return mon

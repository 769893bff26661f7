"""A REINFORCE "discount_rewards" that multiplies each reward by gamma to the power of its
own step instead of summing the discounted rewards that follow it: on a task that pays 1
per step the weights fall from 1 to gamma^T along the episode, and once standardised every
early action is pushed up and every late one pushed down, whatever followed it. How long
the episode went on after an action no longer reaches that action's weight.

Reported: "Need to Improve Discounted Reward" -
https://github.com/hunkim/ReinforcementZeroToAll/issues/1 (the tutorial's
``d_rewards = np.array([val * (gamma ** i) for i, val in enumerate(r)])``, then
standardised; the reporter: it "is not summing up the future rewards ... the policy
gradient will not behave as intended because it will focus on learning the very first
action of each episode"; fixed in PR #4 with Karpathy's backward running sum). Here a
4-16-2 policy on the NumPy cart-pole of benchmarks/real_bugs/_policy_gradient.py, Adam at
1e-2, gamma 0.99, four episodes per update, weights standardised over the update's steps.
Fix: the returns to go, G_t = r_t + gamma * G_{t+1}.

Measured (held-out: the greedy policy's mean episode length over 50 starts no training
episode began from, cut at 200), 100 updates: the bug's agent lasts 189.3 steps, the
fixed twin 200.0; seeds + 1000: 46.2 against 200.0.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._pg_tutorials import CartPoles, held_out_length, play, \
    policy_net, returns_to_go

TITLE = "Need to Improve Discounted Reward"
LINK = "https://github.com/hunkim/ReinforcementZeroToAll/issues/1"
EXPECTED = ("RETURNS_MISALIGNED",)
STEPS = 100
EPISODES, GAMMA = 4, 0.99


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    env = CartPoles(EPISODES, seed=0)
    policy = policy_net(hidden=16)
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
    with nd.watch(policy, optimizer, **watch) as mon:
        for _ in range(steps):
            batch = play(env, policy, EPISODES)
            alive, rewards = batch["alive"], batch["rewards"]
            if fixed:       # the discounted sum of the rewards that followed each step
                returns = returns_to_go(rewards, GAMMA)
            else:           # BUG: each reward discounted by its own step, never summed
                steps_in = torch.arange(len(rewards), dtype=torch.float32)[:, None]
                returns = rewards * GAMMA ** steps_in
            kept = alive.bool()
            weights = (returns - returns[kept].mean()) / (returns[kept].std() + 1e-8)
            loss = -(batch["log_probs"] * weights * alive).sum() / EPISODES
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_length = held_out_length(policy)
    return mon

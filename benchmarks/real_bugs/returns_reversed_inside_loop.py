"""The discounted returns are reversed back into time order inside the loop that builds
them, once per reward instead of once at the end: the list is flipped after every append,
so the returns come out shuffled across the episode's steps (the first step keeps its own,
the others get a return from elsewhere in the episode, most of them one that no longer
holds their own reward). The policy gradient credits each action with another step's
outcome.

Reported: "Move reverse outside for loop?" -
https://github.com/PacktPublishing/Tensorflow-2-Reinforcement-Learning-Cookbook/issues/27
("When compute discounted rewards, it seems that reverse should be moved outsdie of for
loop"; the author: "Thanks for spotting and reporting this bug! You are right, the
`reverse()` on the `discounted_rewards` should be done outside the for loop"). The
recipe's REINFORCE agent, here in torch: an episode of ten steps; each step shows a cue
light (left or right) and the clock, and pays 1 for the right response, which is to follow
the cue on even steps and to go against it on odd ones. Returns to go with gamma 0.5,
standardised over the batch of episodes. The agent reads the light and the clock through
noisy sensors (Gaussian noise on their codes). Steps 1 to 6 get the return of a later step,
which holds nothing of their own reward, and stay at chance. Fix: one ``reverse()`` after the
loop.

Why watch misses it: the returns are computed in Python lists and reach the loss as a
constant weight of the policy-gradient term (the monitor reads that term: a constant of
both signs, standardised, exactly like the fixed twin's). What is wrong is which step
gets which return, and the batch's rows carry no time order the monitor could check.
"""
import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

import nndebug as nd

TITLE = "Move reverse outside for loop?"
LINK = "https://github.com/PacktPublishing/Tensorflow-2-Reinforcement-Learning-Cookbook/issues/27"
EXPECTED = ("RETURNS_MISALIGNED",)
STEPS = 150
HORIZON, EPISODES, GAMMA = 10, 16, 0.5
SENSOR_NOISE = 0.1


def discounted_returns(rewards, fixed):
    returns, running = [], 0.0
    for reward in reversed(rewards):
        running = reward + GAMMA * running
        returns.append(running)
        if not fixed:
            returns.reverse()                 # BUG: reversed on every pass of the loop
    if fixed:
        returns.reverse()
    return returns


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    policy = nn.Sequential(nn.Linear(2 + HORIZON, 32), nn.ReLU(), nn.Linear(32, 2))
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
    with nd.watch(policy, optimizer, **watch) as mon:
        for _ in range(steps):
            states, actions, returns, paid = [], [], [], []
            for _ in range(EPISODES):
                cues = rng.integers(2, size=HORIZON)
                clock = np.eye(HORIZON)
                obs = torch.tensor(np.concatenate([np.stack([cues == 0, cues == 1], axis=1),
                                                   clock], axis=1), dtype=torch.float32)
                obs = obs + SENSOR_NOISE * torch.from_numpy(
                    rng.standard_normal(obs.shape).astype(np.float32))
                wanted = cues ^ (np.arange(HORIZON) % 2)    # follow on even steps, else not
                with torch.no_grad():
                    chosen = Categorical(logits=policy(obs)).sample()
                rewards = (chosen.numpy() == wanted).astype(np.float32).tolist()
                states.append(obs)
                actions.append(chosen)
                returns += discounted_returns(rewards, fixed)
                paid += rewards
            states, actions = torch.cat(states), torch.cat(actions)
            returns = torch.tensor(returns)
            returns = (returns - returns.mean()) / (returns.std() + 1e-8)
            loss = -(Categorical(logits=policy(states)).log_prob(actions) * returns).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.final_reward = float(np.mean(paid))
    return mon

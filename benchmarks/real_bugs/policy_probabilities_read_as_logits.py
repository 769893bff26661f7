"""An actor whose network ends in a softmax hands its probabilities to the categorical
distribution as LOGITS: the distribution applies a second softmax to numbers that lie in
[0, 1], so no action can ever get more than e / (e + 1) = 0.73 of the mass (two actions),
however sure the network is. Training, the policy the agent acts with and learns from stays
near-random at every state; the log-probabilities and the entropy are those of that
flattened policy, so the gradient keeps pushing the probabilities to 0 and 1 for almost no
change in behaviour. Acting greedily hides it (the argmax survives the second softmax).

Reported: "fix distribution bug" - https://github.com/ekapolc/RL_course_2019/pull/6
(merged; "TF2 got suboptimal results because tfp.distributions.Categorical() takes logits
as argument before probs. Change to specify tfp.distributions.Categorical(probs=prob)"; the
course's policy network ended in a softmax and passed its output positionally, i.e. as
logits). Here the same mistake in torch, spelled out (``Categorical(logits=probs)``): an
advantage actor-critic (8 copies x 16 steps a rollout, n-step returns bootstrapped from a
separate value network, entropy 0.01, Adam at 3e-3 for both) on a cart-pole written out in
NumPy (benchmarks/real_bugs/_policy_gradient.py); the actor is the watched model. Fix:
``Categorical(probs=probs)``.

Measured (held-out: the mean episode length over 50 unseen starts, cut at 200, acting as
the agent acts - drawing from its policy; greedy in brackets): 300 updates: the bug's agent, acting as it
trains, lasts 101.7 steps, the fixed twin 200.0 (greedy: 200.0 and 200.0). Seeds shifted
by 1000: 104.4 against 193.2 (greedy: 200.0 and 200.0). The harm is in the stochastic
policy the algorithm trains and acts with; its argmax is as good as the twin's.
"""
import torch
from torch import nn
from torch.distributions import Categorical
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._policy_gradient import ACTIONS, OBSERVATION, CartPoles, \
    held_out_length, value_net

TITLE = "fix distribution bug"
LINK = "https://github.com/ekapolc/RL_course_2019/pull/6"
EXPECTED = ("DOUBLE_SOFTMAX",)
STEPS = 300
ENVS, HORIZON, GAMMA = 8, 16, 0.99


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    env = CartPoles(ENVS, seed=0)
    actor = nn.Sequential(nn.Linear(OBSERVATION, 64), nn.Tanh(), nn.Linear(64, ACTIONS),
                          nn.Softmax(dim=-1))
    critic = value_net()
    if fixed:
        policy = lambda probs: Categorical(probs=probs)        # noqa: E731
    else:                   # BUG: probabilities handed over as logits (a second softmax)
        policy = lambda probs: Categorical(logits=probs)       # noqa: E731
    optimizer = torch.optim.Adam(actor.parameters(), lr=3e-3)
    critic_optimizer = torch.optim.Adam(critic.parameters(), lr=3e-3)
    observations = env.observe()
    with nd.watch(actor, optimizer, **watch) as mon:
        for _ in range(steps):
            states, actions, rewards, dones = [], [], [], []
            for _ in range(HORIZON):
                with torch.no_grad():
                    action = policy(actor(observations)).sample()
                states.append(observations)
                actions.append(action)
                observations, reward, done = env.step(action.numpy())
                rewards.append(torch.from_numpy(reward))
                dones.append(torch.from_numpy(done).float())
            with torch.no_grad():
                running = critic(observations)[:, 0]
            returns = []
            for t in reversed(range(HORIZON)):
                running = rewards[t] + GAMMA * running * (1 - dones[t])
                returns.insert(0, running)
            returns = torch.stack(returns).reshape(-1)
            states, actions = torch.cat(states), torch.cat(actions)
            dist = policy(actor(states))
            advantages = returns - critic(states)[:, 0].detach()
            loss = -(dist.log_prob(actions) * advantages).mean() - 0.01 * dist.entropy().mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
            critic_loss = F.mse_loss(critic(states)[:, 0], returns)
            critic_optimizer.zero_grad()
            critic_loss.backward()
            critic_optimizer.step()
    mon.held_out_length = held_out_length(actor, sample=lambda probs: policy(probs).sample())
    mon.held_out_greedy_length = held_out_length(actor)
    return mon

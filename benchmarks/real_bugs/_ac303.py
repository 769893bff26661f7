"""A balancing task with a hand-written DDPG loop, and a hand-written A2C loop on batch 142's
point-reaching task, for real-bug batch 303 (beginner actor-critic for continuous control).

The task: a point on the plane sits on an unstable equilibrium - left alone it drifts away
from the origin, ``s' = s + DT * (K * s + a)`` - and the agent pushes it with a 2-D action in
[-1, 1]^2 (the environment clips it). Every step the point stays inside the box |s| <= 1
pays 1 (an "alive" reward, as in CartPole or Hopper); leaving the box ends the episode (a
real terminal state). Past |s| ~ 0.67 on one axis no action can bring it back, so a good
policy pushes towards the origin early. Doing nothing survives about 6 steps from the
held-out starts, a trained policy all HORIZON steps.

Training is off-policy on fresh transitions each step, as a first DDPG tutorial's loop with
its replay buffer filled from a broad start distribution would see them: BATCH start states
drawn uniformly in the box, the actor's action plus Gaussian exploration noise (a quarter of
the rows a uniform random action), and the environment's answer. The held-out metric is the
mean number of steps the deterministic policy survives over HELD_OUT episodes of at most
HORIZON steps from start states in [-0.6, 0.6]^2 that training never drew (higher is better).

The monitor watches the critic with its optimizer (the TD regression is the loop's loss);
the actor has its own optimizer.
"""
import numpy as np
import torch
import torch.nn as nn
from torch.func import functional_call

import nndebug as nd

DT, K, BOX = 0.1, 1.5, 1.0
GAMMA = 0.9
TAU = 0.02
BATCH = 128
NOISE = 0.3
HORIZON, HELD_OUT = 60, 256
LR_ACTOR, LR_CRITIC = 1e-3, 3e-3


def env_step(state, action):
    """Next state, reward and terminal flag for a batch of (state, action) rows."""
    action = action.clamp(-1.0, 1.0)
    nxt = state + DT * (K * state + action)
    done = (nxt.abs().max(dim=1).values > BOX).float()
    return nxt, torch.ones(len(state)), done


def start_states(n):
    return (torch.rand(n, 2) * 2 - 1) * BOX


def mlp(n_in, n_out):
    return nn.Sequential(nn.Linear(n_in, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                         nn.Linear(64, n_out))


class Actor(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = mlp(2, 2)

    def forward(self, state):
        return torch.tanh(self.net(state))


class Critic(nn.Module):
    """Q(s, a) as a (batch, 1) column, as most tutorials' critics return it."""

    def __init__(self):
        super().__init__()
        self.net = mlp(4, 1)

    def forward(self, state, action):
        return self.net(torch.cat([state, action], 1))


def transitions(act):
    """BATCH fresh exploratory transitions; ``act`` maps states to actions. Rewards and
    terminal flags come as (batch, 1) columns, like the critic's output."""
    s = start_states(BATCH)
    with torch.no_grad():
        a = act(s) + NOISE * torch.randn(BATCH, 2)
    uniform = torch.rand(BATCH) < 0.25
    a[uniform] = torch.rand(int(uniform.sum()), 2) * 2 - 1
    a = a.clamp(-1.0, 1.0)
    s2, r, done = env_step(s, a)
    return s, a, r.unsqueeze(1), s2, done.unsqueeze(1)


def held_out_steps(policy, seed=0):
    """Mean steps survived by ``policy`` (states -> actions) over HELD_OUT episodes."""
    rng = np.random.default_rng(seed + 11)
    s = torch.from_numpy(rng.uniform(-0.6, 0.6, size=(HELD_OUT, 2)).astype(np.float32))
    alive = torch.ones(HELD_OUT)
    total = torch.zeros(HELD_OUT)
    with torch.no_grad():
        for _ in range(HORIZON):
            s, r, done = env_step(s, policy(s))
            total += alive * r
            alive = alive * (1 - done)
    return float(total.mean())


def soft_update(online, target, tau=TAU):
    """target <- tau * online + (1 - tau) * target."""
    with torch.no_grad():
        for p, q in zip(online.parameters(), target.parameters()):
            q.mul_(1 - tau).add_(p, alpha=tau)


def ddpg(steps, watch, *, td_target=None, critic_loss=None, update_targets=None):
    """DDPG on the task under ``nd.watch(critic, critic_optimizer)``; the monitor gets the
    held-out survival as ``held_out_steps``. The three hooks are the pieces the cases vary:
    ``td_target(r, done, s2, target_actor, target_critic)`` (no_grad is the caller's job),
    ``critic_loss(q, y)``, and ``update_targets(actor, critic, target_actor,
    target_critic)``."""
    torch.manual_seed(0)
    actor, critic = Actor(), Critic()
    target_actor, target_critic = Actor(), Critic()
    target_actor.load_state_dict(actor.state_dict())
    target_critic.load_state_dict(critic.state_dict())
    actor_opt = torch.optim.Adam(actor.parameters(), lr=LR_ACTOR)
    critic_opt = torch.optim.Adam(critic.parameters(), lr=LR_CRITIC)
    if td_target is None:
        def td_target(r, done, s2, target_actor, target_critic):
            return r + GAMMA * (1 - done) * target_critic(s2, target_actor(s2))
    if critic_loss is None:
        def critic_loss(q, y):
            return ((q - y) ** 2).mean()
    if update_targets is None:
        def update_targets(actor, critic, target_actor, target_critic):
            soft_update(actor, target_actor)
            soft_update(critic, target_critic)
    with nd.watch(critic, critic_opt, **watch) as mon:
        for _ in range(steps):
            s, a, r, s2, done = transitions(actor)
            with torch.no_grad():
                y = td_target(r, done, s2, target_actor, target_critic)
            loss = critic_loss(critic(s, a), y)
            critic_opt.zero_grad()
            loss.backward()
            critic_opt.step()
            fixed_q = {k: v.detach() for k, v in critic.named_parameters()}
            actor_loss = -functional_call(critic, fixed_q, (s, actor(s))).mean()
            actor_opt.zero_grad()               # Q held fixed in the actor's step
            actor_loss.backward()
            actor_opt.step()
            update_targets(actor, critic, target_actor, target_critic)
            mon.step(loss)
    mon.held_out_steps = held_out_steps(actor)
    return mon


# --- A2C with a Gaussian policy on the point-reaching task of batch 142 ------------------

class GaussianActorCritic(nn.Module):
    """One body, a Gaussian policy head (a learned log std per action) and a value head
    that returns V(s) as a (batch, 1) column, as most tutorials' heads do."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(2, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh())
        self.mean = nn.Linear(64, 2)
        self.value = nn.Linear(64, 1)
        self.log_std = nn.Parameter(torch.zeros(2))

    def forward(self, state):
        h = self.body(state)
        dist = torch.distributions.Normal(self.mean(h), self.log_std.exp())
        return dist, self.value(h)

    def act(self, state):
        return self.mean(self.body(state))


A2C_ENVS, A2C_ROLLOUT, A2C_GAMMA, A2C_LR = 64, 5, 0.9, 3e-3
REWARD_SCALE = 0.1       # rewards scaled down for the value head, as tutorials do


def a2c(steps, watch, *, returns_column=True):
    """Synchronous A2C on ``_continuous_control``'s point-reaching task under
    ``nd.watch(model, optimizer)``: A2C_ENVS environments, A2C_ROLLOUT-step rollouts with a
    bootstrapped n-step return, one update per rollout. Log-probabilities and values are
    (batch, 1) columns; ``returns_column``: the (batch,) returns made a column too. The
    monitor gets ``held_out_return`` (the mean action, the task's 256 held-out episodes)."""
    from benchmarks.real_bugs import _continuous_control as cc
    torch.manual_seed(0)
    model = GaussianActorCritic()
    optimizer = torch.optim.Adam(model.parameters(), lr=A2C_LR)
    state = cc.start_states(A2C_ENVS)
    age = torch.zeros(A2C_ENVS)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            log_probs, values, rewards, masks, entropies = [], [], [], [], []
            for _ in range(A2C_ROLLOUT):
                dist, value = model(state)
                action = dist.sample()
                nxt, reward, done = cc.env_step(state, action)
                log_probs.append(dist.log_prob(action).sum(1, keepdim=True))
                entropies.append(dist.entropy().sum(1))
                values.append(value)
                rewards.append(REWARD_SCALE * reward)
                masks.append(1 - done)
                age = (age + 1) * (1 - done)
                reset = (done > 0) | (age >= cc.HORIZON)
                nxt = torch.where(reset[:, None], cc.start_states(A2C_ENVS), nxt)
                age = torch.where(reset, torch.zeros_like(age), age)
                state = nxt
            with torch.no_grad():
                ret = model(state)[1].squeeze(1)
            returns = []
            for r, m in zip(reversed(rewards), reversed(masks)):
                ret = r + A2C_GAMMA * m * ret
                returns.insert(0, ret)
            returns = torch.cat(returns)                    # (batch,)
            if returns_column:
                returns = returns[:, None]                  # (batch, 1), as the values
            values = torch.cat(values)
            advantage = returns - values
            policy_loss = -(torch.cat(log_probs) * advantage.detach()).mean()
            value_loss = advantage.pow(2).mean()
            loss = policy_loss + 0.5 * value_loss - 0.01 * torch.cat(entropies).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_return = cc.held_out_return(model.act)
    return mon

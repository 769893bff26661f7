"""A tiny continuous-control task and hand-written DDPG / SAC loops (real-bug batch 142).

The task: a point on the plane, started anywhere in [-3, 3]^2, must reach the origin. An
action is a 2-D velocity in [-MAX_ACTION, MAX_ACTION]^2 (the environment clips it); the
point moves by ``STEP_SCALE * action``, the reward is minus its distance to the origin after
the move, and an episode ends (terminal) once the point is within GOAL_RADIUS of it. The
best policy moves at full speed (|a| = MAX_ACTION on the larger axis) towards the origin.

Training is off-policy on fresh transitions each step: BATCH start states drawn uniformly,
the actor's action plus Gaussian exploration noise (a quarter of the rows a uniform random
action), the environment's answer. The held-out metric is the mean return of the
deterministic policy over HELD_OUT episodes of at most HORIZON steps from start states the
training never drew (higher is better; doing nothing scores about -57, a trained policy
about -4).

The monitor watches the critic with its optimizer (the TD regression is the loop's loss,
as in the DQN cases); the actor has its own optimizer.
"""
import numpy as np
import torch
import torch.nn as nn
from torch.func import functional_call

import nndebug as nd

MAX_ACTION = 2.0          # the environment's action bound (a Pendulum-like range)
STEP_SCALE = 0.25
GOAL_RADIUS = 0.25
GAMMA = 0.9
TAU = 0.01
BATCH = 128
NOISE = 0.3               # exploration noise, as a share of MAX_ACTION
HORIZON, HELD_OUT = 25, 256
LR_ACTOR, LR_CRITIC = 1e-3, 1e-3


def env_step(state, action):
    """Next state, reward and terminal flag for a batch of (state, action) rows."""
    action = action.clamp(-MAX_ACTION, MAX_ACTION)
    nxt = state + STEP_SCALE * action
    dist = nxt.norm(dim=1)
    return nxt, -dist, (dist < GOAL_RADIUS).float()


def start_states(n):
    return (torch.rand(n, 2) * 2 - 1) * 3.0


def mlp(n_in, n_out):
    return nn.Sequential(nn.Linear(n_in, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                         nn.Linear(64, n_out))


class Actor(nn.Module):
    """tanh-bounded deterministic policy, scaled by ``scale``."""

    def __init__(self, scale=MAX_ACTION):
        super().__init__()
        self.net = mlp(2, 2)
        self.scale = scale

    def forward(self, state):
        return torch.tanh(self.net(state)) * self.scale


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = mlp(4, 1)

    def forward(self, state, action):
        return self.net(torch.cat([state, action / MAX_ACTION], 1)).squeeze(1)


def transitions(act):
    """BATCH fresh transitions with exploration: ``act`` maps states to actions."""
    s = start_states(BATCH)
    with torch.no_grad():
        a = act(s) + NOISE * MAX_ACTION * torch.randn(BATCH, 2)
    uniform = torch.rand(BATCH) < 0.25
    a[uniform] = (torch.rand(int(uniform.sum()), 2) * 2 - 1) * MAX_ACTION
    a = a.clamp(-MAX_ACTION, MAX_ACTION)
    s2, r, done = env_step(s, a)
    return s, a, r, s2, done


def held_out_return(policy, seed=0):
    """Mean return of ``policy`` (states -> actions) over HELD_OUT episodes."""
    rng = np.random.default_rng(seed + 7)
    s = torch.from_numpy(rng.uniform(-3, 3, size=(HELD_OUT, 2)).astype(np.float32))
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


def td_target(r, done, s2, target_actor, target_critic):
    with torch.no_grad():
        return r + GAMMA * (1 - done) * target_critic(s2, target_actor(s2))


def ddpg(steps, watch, *, actor_scale=MAX_ACTION, goal=td_target, detach_prediction=False,
         update_targets=None):
    """DDPG on the task under ``nd.watch(critic, critic_optimizer)``; the monitor gets the
    held-out return as ``held_out_return``. ``goal``: the TD goal function;
    ``detach_prediction``: the critic's Q(s, a) detached in its loss; ``update_targets``:
    the soft update (online networks first, then targets)."""
    torch.manual_seed(0)
    actor, critic = Actor(actor_scale), Critic()
    target_actor, target_critic = Actor(actor_scale), Critic()
    target_actor.load_state_dict(actor.state_dict())
    target_critic.load_state_dict(critic.state_dict())
    actor_opt = torch.optim.Adam(actor.parameters(), lr=LR_ACTOR)
    critic_opt = torch.optim.Adam(critic.parameters(), lr=LR_CRITIC)
    if update_targets is None:
        def update_targets(actor, critic, target_actor, target_critic):
            soft_update(actor, target_actor)
            soft_update(critic, target_critic)
    with nd.watch(critic, critic_opt, **watch) as mon:
        for _ in range(steps):
            s, a, r, s2, done = transitions(actor)
            fixed_q = {k: v.detach() for k, v in critic.named_parameters()}
            actor_loss = -functional_call(critic, fixed_q, (s, actor(s))).mean()
            actor_opt.zero_grad()               # Q held fixed in the actor's step
            actor_loss.backward()
            actor_opt.step()
            y = goal(r, done, s2, target_actor, target_critic)
            q = critic(s, a)
            if detach_prediction:
                q = q.detach()
            critic_loss = ((q - y) ** 2).mean()
            critic_opt.zero_grad()
            critic_loss.backward()
            critic_opt.step()
            update_targets(actor, critic, target_actor, target_critic)
            mon.step(critic_loss)
    mon.held_out_return = held_out_return(actor)
    return mon


class GaussianActor(nn.Module):
    """SAC's policy: a Gaussian over u, squashed a = MAX_ACTION * tanh(u)."""

    def __init__(self):
        super().__init__()
        self.net = mlp(2, 4)

    def forward(self, state):
        mean, log_std = self.net(state).chunk(2, dim=1)
        return mean, log_std.clamp(-5, 2)

    def act(self, state):
        return torch.tanh(self(state)[0]) * MAX_ACTION


class TwinCritic(nn.Module):
    def __init__(self):
        super().__init__()
        self.q1, self.q2 = Critic(), Critic()

    def forward(self, state, action):
        return self.q1(state, action), self.q2(state, action)


def squash_correction(u, a):
    """log |da/du| per row for a = MAX_ACTION * tanh(u) (SAC paper, appendix C)."""
    return torch.log(MAX_ACTION * (1 - torch.tanh(u).pow(2)) + 1e-6).sum(1)


def sample(actor, state, correction=squash_correction):
    mean, log_std = actor(state)
    dist = torch.distributions.Normal(mean, log_std.exp())
    u = dist.rsample()
    a = torch.tanh(u) * MAX_ACTION
    return a, dist.log_prob(u).sum(1) - correction(u, a)


SAC_ALPHA = 0.1           # the starting temperature
TARGET_ENTROPY = -2.0     # minus the action dimension, as in the SAC paper


def sac(steps, watch, *, correction=squash_correction, alpha_in_actor_loss=True):
    """SAC with twin critics and a learned temperature under ``nd.watch(critics,
    critic_optimizer)``; the monitor gets ``held_out_return`` (deterministic tanh(mean))."""
    torch.manual_seed(0)
    actor, critic, target = GaussianActor(), TwinCritic(), TwinCritic()
    target.load_state_dict(critic.state_dict())
    log_alpha = torch.tensor(float(np.log(SAC_ALPHA)), requires_grad=True)
    actor_opt = torch.optim.Adam(actor.parameters(), lr=LR_ACTOR)
    critic_opt = torch.optim.Adam(critic.parameters(), lr=LR_CRITIC)
    alpha_opt = torch.optim.Adam([log_alpha], lr=LR_ACTOR)
    with nd.watch(critic, critic_opt, **watch) as mon:
        for _ in range(steps):
            s, a, r, s2, done = transitions(actor.act)
            alpha = log_alpha.exp().detach()
            a_new, logp = sample(actor, s, correction)
            fixed_q = {k: v.detach() for k, v in critic.named_parameters()}
            q1_new, q2_new = functional_call(critic, fixed_q, (s, a_new))
            weight = alpha if alpha_in_actor_loss else 1.0
            actor_loss = (weight * logp - torch.min(q1_new, q2_new)).mean()
            actor_opt.zero_grad()
            actor_loss.backward()
            actor_opt.step()
            alpha_loss = -(log_alpha * (logp.detach() + TARGET_ENTROPY)).mean()
            alpha_opt.zero_grad()
            alpha_loss.backward()
            alpha_opt.step()
            with torch.no_grad():
                a2, logp2 = sample(actor, s2, correction)
                q1_next, q2_next = target(s2, a2)
                soft = torch.min(q1_next, q2_next) - alpha * logp2
                y = r + GAMMA * (1 - done) * soft
            q1, q2 = critic(s, a)
            critic_loss = ((q1 - y) ** 2).mean() + ((q2 - y) ** 2).mean()
            critic_opt.zero_grad()
            critic_loss.backward()
            critic_opt.step()
            soft_update(critic, target)
            mon.step(critic_loss)
    mon.held_out_return = held_out_return(actor.act)
    mon.temperature = float(log_alpha.detach().exp())
    return mon

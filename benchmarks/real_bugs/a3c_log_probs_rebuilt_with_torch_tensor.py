"""An actor-critic's update rebuilds the episode's log-probabilities from its memory with
``torch.tensor(...)``: the new tensor has no graph, so the actor's term of the loss is a
constant to autograd. Only the critic's value error trains anything; the policy stays at
its random initialisation while the loss goes on falling.

Reported: "Lose of gradient in log_probs" -
https://github.com/Quantum-Cheese/DeepReinforcementLearning_Pytorch/issues/1 (the A3C
worker builds ``log_probs = torch.tensor([t[1] for t in self.memory], dtype=torch.float)``;
the reporter: "I think this will lose the gradient of log_probs"). Here a single worker on
the NumPy cart-pole of benchmarks/real_bugs/_policy_gradient.py: separate 4-32-2 actor and
4-32-1 critic in one module, Adam at 1e-2, four episodes per update, returns to go at
gamma 0.99 standardised, advantage = return - value (detached), loss = actor term + 0.5 *
value error. Fix: keep the log-probabilities the distribution returned (torch.stack).

Measured (held-out: the greedy policy's mean episode length over 50 starts no training
episode began from, cut at 200), 150 updates: the bug's agent lasts 9.4 steps, the fixed
twin 200.0; seeds + 1000: 15.3 against 200.0.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._pg_tutorials import ActorCritic, CartPoles, held_out_length, \
    play, returns_to_go

TITLE = "Lose of gradient in log_probs"
LINK = "https://github.com/Quantum-Cheese/DeepReinforcementLearning_Pytorch/issues/1"
EXPECTED = ("LOSS_TERM_WITHOUT_GRADIENT",)
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
            alive, values = batch["alive"], batch["values"]
            returns = returns_to_go(batch["rewards"], GAMMA)
            kept = alive.bool()
            returns = (returns - returns[kept].mean()) / (returns[kept].std() + 1e-8)
            if fixed:
                log_probs = batch["log_probs"]
            else:   # BUG: the memory's log-probabilities copied into a new tensor
                log_probs = torch.tensor(batch["log_probs"].tolist(), dtype=torch.float)
            advantages = (returns - values).detach()
            actor_loss = -(log_probs * advantages * alive).sum() / alive.sum()
            critic_loss = ((returns - values).pow(2) * alive).sum() / alive.sum()
            loss = actor_loss + 0.5 * critic_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_length = held_out_length(model)
    return mon

"""The Keras actor-critic example weighs each log-probability by ``diff = ret - value``
with the critic's value still attached to the graph: the actor's loss
``-log_prob * (ret - value)`` also sends ``+log_prob`` times the value's gradient into the
shared layer and the critic head, so the critic is pushed to raise its value wherever the
taken action was unlikely, on top of its own huber loss; the advantage the actor sees is
biased by the critic chasing the wrong target.

Reported: "Possible issue of gradients calculation in actor_critic_cartpole example" -
https://github.com/keras-team/keras-io/issues/194 (the reporter: one "should use
diff = ret - tf.stop_gradient(value) instead of plain diff = ret - value to cut down the
gradient backpropagation via value. And in experiments, the change can indeed greatly
reduce the training steps"). Here the example's set-up on the NumPy cart-pole of
benchmarks/real_bugs/_policy_gradient.py: one shared 128-unit ReLU layer, an actor and a
critic head, Adam at 1e-2, returns to go at gamma 0.99 standardised, huber critic loss,
two episodes per update. Fix: detach the value in the advantage.

Measured (held-out: the greedy policy's mean episode length over 50 starts no training
episode began from, cut at 200), 60 updates: the bug's agent lasts 140.8 steps, the fixed
twin 160.7; seeds + 1000: 22.6 against 133.5.
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._pg_tutorials import CartPoles, SharedActorCritic, \
    held_out_length, play, returns_to_go

TITLE = "Possible issue of gradients calculation in actor_critic_cartpole example"
LINK = "https://github.com/keras-team/keras-io/issues/194"
EXPECTED = ("POLICY_WEIGHT_NOT_DETACHED",)
STEPS = 60
EPISODES, GAMMA = 2, 0.99


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    env = CartPoles(EPISODES, seed=0)
    model = SharedActorCritic(hidden=128)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            batch = play(env, model, EPISODES)
            alive, values, log_probs = batch["alive"], batch["values"], batch["log_probs"]
            returns = returns_to_go(batch["rewards"], GAMMA)
            kept = alive.bool()
            returns = (returns - returns[kept].mean()) / (returns[kept].std() + 1e-8)
            if fixed:
                diff = returns - values.detach()
            else:           # BUG: diff = ret - value, with no stop_gradient on the value
                diff = returns - values
            actor_loss = (-log_probs * diff * alive).sum()
            critic_loss = (F.huber_loss(values, returns, reduction="none") * alive).sum()
            loss = (actor_loss + critic_loss) / EPISODES
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_length = held_out_length(model)
    return mon

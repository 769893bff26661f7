"""PPO's generalised advantage estimate runs backwards over a rollout in which finished
episodes restart in place, and the running sum is not reset where an episode ended: each
TD error is masked at the episode's end (no bootstrap from the next episode's first
state), but the accumulated ``gae`` of the NEXT episode's first steps is still carried,
discounted by gamma * lambda, into the last steps of the episode before it. The action
that made the pole fall is credited with how well the following episode began, so the
steps that end an episode get advantages that say nothing about them.

Reported: "Fatal bug in implementation of GAE" -
https://github.com/vietnh1009/Super-mario-bros-PPO-pytorch/issues/21 (the reporter: the
line ``gae = gae * opt.gamma * opt.tau`` should be ``gae = gae * opt.gamma * opt.tau *
(1 - done)``; a worker's 500 steps hold the end of one game and the start of the next,
"The wrong implementation forgets to reset GAE to zero" at the boundary, "This will cause
the advantage of s250 become bigger and bigger, which will make the network think you
should output a250 when seeing s250 ... The agent does not learn anything"). Here a PPO
agent (separate 64-unit policy and value networks in one module, one Adam at 1e-3, four
epochs on each rollout of 8 copies x 64 steps, clip 0.2, value loss 0.5, entropy 0.01,
advantages standardised) on a cart-pole written out in NumPy
(benchmarks/real_bugs/_policy_gradient.py). Fix: the report's, the running sum multiplied
by ``1 - done`` before the step's TD error is added.

Measured (held-out: the greedy policy's mean episode length over 50 unseen starts, cut at
200): 200 optimizer steps (50 rollouts, 25,600 steps of
play): the bug's agent lasts 28.3 steps, the fixed twin 200.0. Seeds shifted by 1000: 34.3
against 200.0 (by 2000: 47.9 against 186.3). With twice the steps the bug's agent catches
up part of the way (173 against 165 at seed 0; the twin's greedy score wobbles near the
cut): the bug slows learning a great deal more than it caps it at this scale.
"""
import torch

from benchmarks.real_bugs._policy_gradient import held_out_length, train_ppo

TITLE = "Fatal bug in implementation of GAE"
LINK = "https://github.com/vietnh1009/Super-mario-bros-PPO-pytorch/issues/21"
EXPECTED = ("ADVANTAGE_CROSSES_EPISODE_BOUNDARY",)
STEPS = 200
ENVS, HORIZON, EPOCHS, CLIP, GAMMA, LAMBDA = 8, 64, 4, 0.2, 0.99, 0.95


def advantages_of(batch, last_values, fixed):
    """GAE backwards over the rollout, the report's loop: ``dones[t]``: step t ended its
    episode (the copy restarted, so values[t + 1] is the next episode's first state)."""
    rewards, values, dones = batch["rewards"], batch["values"], batch["dones"]
    advantages = torch.zeros_like(rewards)
    running, next_values = torch.zeros(ENVS), last_values
    for t in reversed(range(HORIZON)):
        if fixed:
            running = running * GAMMA * LAMBDA * (1 - dones[t])
        else:                  # BUG: the next episode's advantages flow into this one
            running = running * GAMMA * LAMBDA
        running = running + rewards[t] + GAMMA * next_values * (1 - dones[t]) - values[t]
        advantages[t] = running
        next_values = values[t]
    return advantages, advantages + values


def run(fixed=False, steps=STEPS, **watch):
    def policy_loss_of(ratio, advantages):
        return -torch.min(ratio * advantages,
                          ratio.clamp(1 - CLIP, 1 + CLIP) * advantages).mean()

    mon, model = train_ppo(steps, 1e-3, EPOCHS,
                           lambda batch, last_values, first: advantages_of(batch, last_values,
                                                                           fixed),
                           policy_loss_of, ENVS, HORIZON, **watch)
    mon.held_out_length = held_out_length(model.actor)
    return mon

"""A hand-written PPO that plays ONE environment keeps its rollout batch-major, as
(copies, steps) = (1, T), and standardises the advantages over axis 0 - the copies'
axis, which holds a single value per step. Every advantage minus its own mean is exactly
zero, so the clipped surrogate is zero with zero gradient on every minibatch: only the
value loss and the entropy bonus train, the policy never learns from the rewards, and
the run completes and prints a loss every step (the critic's and the entropy's).

Reported: "Normalizing advantages in PPOAgent" -
https://github.com/tensorflow/agents/issues/651 (the reporter trained on one episode at a
time: "the agent is not learning ... the following code will turn my advantages all to
zeros"; the normalisation's moments were taken over ``axes=(0,)``, the batch axis, and the
maintainers' fix took them over batch and time, ``(0, 1)``). Here a PPO agent (separate
64-unit policy and value networks in one module, one Adam at 1e-3, rollouts of 1
cart-pole x 512 steps stored as (1, 512), 4 epochs of 4 shuffled minibatches, clip 0.2,
value loss 0.5, entropy 0.01, GAE 0.99 / 0.95; benchmarks/real_bugs/_ppo294.py) on a
cart-pole written out in NumPy; the moments are the report's (mean and population
variance, variance_epsilon 1e-8). Fix: the report's, the moments over both axes.

Measured (held-out: the greedy policy's mean episode length over 50 unseen starts, cut at
200; 300 optimizer steps, 19 rollouts): the bug's agent lasts 10.2 steps, the fixed twin
200.0. Seeds + 1000: 11.2 vs 200.0.
"""
import torch

from benchmarks.real_bugs._policy_gradient import held_out_length
from benchmarks.real_bugs._ppo294 import train

TITLE = "Normalizing advantages in PPOAgent"
LINK = "https://github.com/tensorflow/agents/issues/651"
EXPECTED = ("LOSS_TERM_ZERO_WITHOUT_GRADIENT",)
STEPS = 300
ENVS, HORIZON = 1, 512


def normalise(values, axes, epsilon=1e-8):
    mean = values.mean(dim=axes, keepdim=True)
    variance = values.var(dim=axes, unbiased=False, keepdim=True)
    return (values - mean) / torch.sqrt(variance + epsilon)


def run(fixed=False, steps=STEPS, **watch):
    def standardise_of(advantages):
        by_copy = advantages.T                    # (copies, steps), the report's layout
        # BUG unfixed: axis 0 is the copies' axis, one value per step when playing one copy
        normalised = normalise(by_copy, (0, 1) if fixed else (0,))
        return normalised.T

    mon, model = train(steps, envs=ENVS, horizon=HORIZON, standardise_of=standardise_of,
                       **watch)
    mon.held_out_length = held_out_length(model.actor)
    return mon

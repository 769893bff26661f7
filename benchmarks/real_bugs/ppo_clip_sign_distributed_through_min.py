"""PPO's clipped objective with its minus sign moved inside the ``min``:
``min(-mean(A * ratio), -mean(A * clip(ratio)))`` is ``-max(...)``, the OPTIMISTIC of the
two surrogates where PPO takes the pessimistic one. Once a few epochs on the same rollout
have moved the ratio past the clip range in the direction the advantage favours, the
unclipped surrogate is the larger and is the one kept: the clip never binds, nothing stops
the policy running away from the one that collected the data, and the epochs that PPO
makes safe become plain repeated policy-gradient steps on stale samples.

Reported: "Fixed policy loss calculation" -
https://github.com/jvmncs/safe-grid-agents/pull/28 (merged; the author: "Discovered a flaw
in the policy loss calculation (negative sign being distributed through a `min`)"; the
loss was ``torch.min(-(adv * ratio).mean(), -(adv * ratio.clamp(1 - c, 1 + c)).mean())``
and became ``-torch.min((adv * ratio).mean(), (adv * ratio.clamp(1 - c, 1 + c)).mean())``).
Here a PPO agent (separate 64-unit policy and value networks in one module, one Adam,
value loss 0.5, entropy 0.01, clip 0.2, ten epochs on each rollout of 8 x 64 steps, GAE
0.99 / 0.95, advantages standardised; the report's batch-mean form of the surrogates is
kept in both runs) on a cart-pole written out in NumPy
(benchmarks/real_bugs/_policy_gradient.py), learning rate 1e-2. Fix: the report's, the
minus sign outside the ``min``.

Measured (held-out: the greedy policy's mean episode length over 50 unseen starts, cut at
200): 400 optimizer steps (40 rollouts, 20,480 steps
of play): the bug's agent lasts 118.7 steps, the fixed twin 199.2. Seeds shifted by 1000:
34.5 against 194.0 (by 2000: 67.5 against 118.7; by 3000: 46.1 against 199.8). At a
learning rate of 3e-3 the harm is smaller and less regular (the clip binds less often).
"""
import torch

from benchmarks.real_bugs._policy_gradient import gae, held_out_length, train_ppo

TITLE = "Fixed policy loss calculation"
LINK = "https://github.com/jvmncs/safe-grid-agents/pull/28"
EXPECTED = ("PPO_CLIP_OBJECTIVE_INVERTED",)
STEPS = 400
ENVS, HORIZON, EPOCHS, CLIP = 8, 64, 10, 0.2


def run(fixed=False, steps=STEPS, **watch):
    def advantages_of(batch, last_values, first):
        return gae(batch["rewards"], batch["values"], last_values, batch["starts"], first)

    def policy_loss_of(ratio, advantages):
        clipped = ratio.clamp(1 - CLIP, 1 + CLIP)
        if fixed:
            return -torch.min((advantages * ratio).mean(), (advantages * clipped).mean())
        # BUG: the minus inside the min: the larger surrogate wins
        return torch.min(-(advantages * ratio).mean(), -(advantages * clipped).mean())

    mon, model = train_ppo(steps, 1e-2, EPOCHS, advantages_of, policy_loss_of, ENVS, HORIZON,
                           **watch)
    mon.held_out_length = held_out_length(model.actor)
    return mon

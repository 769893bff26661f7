"""A2C with a Gaussian policy computes its advantage as ``returns - values`` with the returns
a flat (batch,) vector and the value head's output - and the summed log-probabilities - as
(batch, 1) columns. ``returns - values`` broadcasts into a (batch, batch) table, so
``-(log_probs * advantage.detach()).mean()`` weighs each action's log-probability by the
batch's MEAN return minus its own state's value: a weight that no longer depends on the
action taken, which carries no policy gradient on average. The value loss, the same table
squared, fits every value to the batch's mean return. The policy barely improves.

Silent: no error and no warning (the losses are written by hand), the loss is finite and
moves, the entropy bonus and the log std train as usual.

Reported: "Fix shape inconsistency in A2CPolicy and PPOPolicy" -
https://github.com/thu-ml/tianshou/pull/155 (tianshou's A2C took ``r = batch.returns`` of
shape [bsz] against a critic value of shape [bsz, 1]: "The original `r - v`'s shape in A2C
is wrong", and a Normal's log_prob is [bsz, 1]; the fix makes the returns a column,
``r = batch.returns[:, None]``).

Here: synchronous A2C (64 environments, 5-step rollouts with a bootstrapped return, gamma
0.9, rewards scaled by 0.1, Adam 3e-3, entropy bonus 0.01) on batch 142's point-reaching
task (``_continuous_control``: reach the origin with a velocity in [-2, 2]^2, reward minus
the distance), log-probabilities summed over the action with ``keepdim=True``. The bug keeps
the returns flat; fix: ``returns[:, None]``.

Measured (400 updates, mean held-out return of the mean action over 256 episodes; doing
nothing scores about -57, the best policy about -4): seed 0: -47.5 for the bug against -3.85
for the fixed twin; seeds shifted by 1000: -10.8 against -3.80.
"""
from benchmarks.real_bugs import _ac303 as ac

TITLE = "Fix shape inconsistency in A2CPolicy and PPOPolicy"
LINK = "https://github.com/thu-ml/tianshou/pull/155"
EXPECTED = ("LOSS_BROADCAST_OVER_BATCH",)
STEPS = 400


def run(fixed=False, steps=STEPS, **watch):
    return ac.a2c(steps, watch, returns_column=fixed)   # BUG: returns left as (batch,)

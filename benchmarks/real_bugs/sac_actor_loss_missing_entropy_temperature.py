"""The SAC policy loss leaves out the entropy temperature: ``(log_pi - min(Q1, Q2)).mean()``
where SAC minimises ``(alpha * log_pi - min(Q1, Q2)).mean()``. The actor weighs its
entropy bonus with 1 while the critics' soft values (and the temperature's own update) use
the learned alpha (0.04-0.06 here): the actor is pushed some 20x harder towards randomness
than the values it climbs assume, its mean action is pulled off the best one, and the
deterministic policy reaches the goal more slowly.

Silent: every loss is finite, the critics' TD regression converges, the temperature tunes
itself as usual, and the return improves - to a worse level.

Reported: "Temperature factor missing in SAC !!!" -
https://github.com/sweetice/Deep-reinforcement-learning-with-pytorch/issues/36 (the
repository's SAC implementations computed ``pi_loss`` from ``log_prob`` without the
temperature: "log_prob should be multiplied by temperature factor (alpha) when calculating
pi_loss"; the fix multiplies it by alpha).

Here: hand-written SAC (twin critics, a tanh-squashed Gaussian actor, learned temperature
from 0.1, target entropy -2) on the batch's point-reaching task (``_continuous_control``).
The bug's actor loss is ``log_pi - min Q``; fix: ``alpha * log_pi - min Q``.

**Measured** (1000 steps, mean held-out return of the deterministic policy tanh(mean) over
256 episodes; doing nothing scores about -57, the best policy about -4): seed 0: -6.96 for
the bug against -4.09 for the fixed twin; seeds shifted by 1000: -6.77 against -4.08.
"""
from benchmarks.real_bugs import _continuous_control as cc

TITLE = "Temperature factor missing in SAC !!!"
LINK = "https://github.com/sweetice/Deep-reinforcement-learning-with-pytorch/issues/36"
EXPECTED = ("ENTROPY_BONUS_UNWEIGHTED",)
STEPS = 1000


def run(fixed=False, steps=STEPS, **watch):
    return cc.sac(steps, watch, alpha_in_actor_loss=fixed)   # BUG: alpha left out

"""The SAC policy's tanh-squash correction applies tanh a second time:
``log_pi = log N(u) - log(1 - tanh(a)^2)`` where ``a = tanh(u)`` is already squashed, in
place of ``log(1 - a^2)``. tanh(a) never exceeds tanh(1) = 0.76, so the correction stays
above log(0.42) and no longer grows without bound as the action saturates: the log-density
of a saturated action is understated, a policy that piles its mass at the action bounds
looks high-entropy, and the temperature (tuned on the same wrong log_pi) and the actor
both follow the wrong entropy.

Silent: the correction is finite everywhere, every loss is finite, and the return
improves - to a worse level.

Reported: "第十四章SAC 算法代码实践中tanh_normal分布的对数概率密度不太对" (chapter 14 SAC: the
tanh-normal log-density is not right) - https://github.com/boyu-ai/Hands-on-RL/issues/44
(the book's SAC policy computed ``log_prob - torch.log(1 - torch.tanh(action).pow(2) +
1e-7)`` on the already-squashed action; commenters checked the SAC paper's appendix C and
agreed the correction should use ``action.pow(2)`` with no second tanh).

Here: hand-written SAC (twin critics, learned temperature from 0.1, target entropy -2) on
the batch's point-reaching task (``_continuous_control``; the action is 2 * tanh(u), the
correction log(2 * (1 - tanh(u)^2)) per dimension). The bug puts tanh(a / 2) in place of
a / 2 = tanh(u) there; fix: the action itself.

**Measured** (1000 steps, mean held-out return of the deterministic policy over 256
episodes; doing nothing scores about -57, the best policy about -4): seed 0: -8.77 for the
bug against -4.09 for the fixed twin; seeds shifted by 1000: -8.65 against -4.08.
"""
import torch

from benchmarks.real_bugs import _continuous_control as cc

TITLE = "第十四章SAC 算法代码实践中tanh_normal分布的对数概率密度不太对"
LINK = "https://github.com/boyu-ai/Hands-on-RL/issues/44"
EXPECTED = ("SQUASH_CORRECTION_WRONG",)
STEPS = 1000


def tanh_twice(u, a):
    squashed = a / cc.MAX_ACTION                 # tanh(u), in [-1, 1]
    # BUG: tanh applied again to the squashed action
    return torch.log(cc.MAX_ACTION * (1 - torch.tanh(squashed).pow(2)) + 1e-6).sum(1)


def run(fixed=False, steps=STEPS, **watch):
    if fixed:
        return cc.sac(steps, watch)
    return cc.sac(steps, watch, correction=tanh_twice)

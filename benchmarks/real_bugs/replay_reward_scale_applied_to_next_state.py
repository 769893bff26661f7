"""The replay buffer's reward scaling multiplies the wrong field of the sampled batch: the
NEXT STATES are scaled instead of the rewards. The target network then values next states
it has never seen (digits at a tenth of their brightness), so every bootstrap reads a
near-constant from the network's biases, and the agent cannot tell a promising
continuation from a poor one.

Silent: the scaled next states are finite and in range, the goal is a constant tensor
under no_grad, and the unscaled rewards are plausible values; the loss converges.

Reported: "BugFix: scaling next_state instead of reward" -
https://github.com/LAMDA-RL/PRDC/pull/1
(the buffer's sampling took the third element of the transition list,
``self.next_state[ind]``, for the reward scaling instead of the second,
``self.reward[ind]``; scaling the next state "obviously didn't work at all", with the fix
the run learned; merged).

Here: the shared digit-chain DQN (``_value_rl``: name the 8x8 digit for 0.5 and carry on,
or cash out for 1 and stop; 32 environments, a replay of every transition, a 128-row batch
per step, target synced every 25 steps) with a reward scale of 0.1 applied at sampling.
Fix: the scale multiplies the rewards.

**Measured** (300 steps, mean greedy return on 256 held-out chains, 1.0 = cash out at
once): seed 0: 1.04 for the bug (the greedy policy cashes out on 91% of first digits)
against 5.53 for the fixed twin; seeds shifted by 1000: 1.02 (cash-out on 96%) against
3.99.
"""
from benchmarks.real_bugs import _value_rl as rl

TITLE = "BugFix: scaling next_state instead of reward"
LINK = "https://github.com/LAMDA-RL/PRDC/pull/1"
EXPECTED = ("NEXT_STATES_OFF_INPUT_SCALE",)
STEPS = 300
REWARD_SCALE = 0.1


class ScaledReplay(rl.Replay):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed

    def sample(self, rng, size):
        batch = super().sample(rng, size)
        if self.fixed:
            batch["r"] = batch["r"] * REWARD_SCALE
        else:
            batch["s2"] = batch["s2"] * REWARD_SCALE    # BUG: the wrong field scaled
        return batch


def run(fixed=False, steps=STEPS, **watch):
    return rl.train(steps, watch, replay=ScaledReplay(fixed))

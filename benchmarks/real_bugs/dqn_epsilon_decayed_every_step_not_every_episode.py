"""The exploration rate is multiplied by its decay factor inside ``replay()``, which runs on
every environment step, where the schedule was written for one decay per episode:
``epsilon *= 0.95`` reaches its floor of 0.01 within the first ninety steps, before the
replay holds anything worth exploiting. From then on the agent acts greedily on an
untrained Q-network; whatever it happened to prefer early (cashing out pays at once) is all
it keeps trying, and the value of the longer road is never sampled.

Reported: "Epsilon Decay is done every step instead of episode" -
https://github.com/shivaverma/Orbit/issues/10 ("The epsilon decay in the code is under the
module agent.replay() which is called every step, making the epsilon rapidly decline during
the first episode ... I've gotten better result by making a separate module for the
epsilon decay and calling it by the end of an episode").

Here: the shared digit-chain DQN (``_beginner_dqn`` on ``_value_rl``'s chain: name the 8x8
digit for 0.5 and carry on, or cash out for 1 and stop; 32 environments stepped together,
one 128-row update per step, target synced every 25 updates); an "episode" is the chain's
horizon of 20 steps. The bug decays epsilon (0.95, floor 0.01) on every step. Fix: decay it
once per 20-step episode (it ends the run near 0.49).

**Measured** (300 steps, mean greedy return on 256 held-out chains, 1.0 = cash out at
once): seed 0: 1.49 for the bug against 3.78 for the fixed twin; seeds shifted by 1000:
1.21 against 2.84.
"""
from benchmarks.real_bugs import _beginner_dqn as dqn

TITLE = "Epsilon Decay is done every step instead of episode"
LINK = "https://github.com/shivaverma/Orbit/issues/10"
EXPECTED = ("EXPLORATION_DECAYED_TOO_FAST",)
STEPS = 300
DECAY, FLOOR, EPISODE = 0.95, 0.01, 20


def every_step(step, steps, epsilon):
    return max(FLOOR, epsilon * DECAY)              # BUG: decayed inside replay(), each step


def every_episode(step, steps, epsilon):
    return max(FLOOR, epsilon * DECAY) if step and step % EPISODE == 0 else epsilon


def run(fixed=False, steps=STEPS, **watch):
    return dqn.train(steps, watch, epsilon=every_episode if fixed else every_step)

"""The DQN's ``agent.replay(batch_size)`` sits after the episode loop, not inside it: the
agent acts for a whole episode and then fits ONE minibatch, where the algorithm fits one
per environment step. Over the same experience the Q-network gets a tenth (here) of its
updates, the target network is synced ten times more rarely in environment time, and by
the time exploration has decayed the network has barely moved from its initial guesses.

Reported: "a hidden bug in your code" - https://github.com/keon/deep-q-learning/issues/12
("The agent.replay(batch_size) should be in the inner loop, means train_on_batch each time
step, not each episode. Your version can pass the cart-pole, but not the lunar-lander").

Here: the shared digit-chain DQN (``_beginner_dqn`` on ``_value_rl``'s chain: name the 8x8
digit for 0.5 and carry on, or cash out for 1 and stop; 32 environments, a replay of every
transition, 128-row batches, target synced every 25 updates, epsilon annealed over the
first half of the run's environment steps), run for ``10 * steps`` environment steps in
10-step episodes. The bug fits one batch per episode (``steps`` updates). Fix: one batch
per environment step (``10 * steps`` updates).

**Measured** (120 episodes = 1200 environment steps, mean greedy return on 256 held-out
chains, 1.0 = cash out at once): seed 0: 1.10 for the bug against 8.04 for the fixed twin;
seeds shifted by 1000: 1.14 against 7.86.
"""
from benchmarks.real_bugs import _beginner_dqn as dqn

TITLE = "a hidden bug in your code"
LINK = "https://github.com/keon/deep-q-learning/issues/12"
EXPECTED = ("TOO_FEW_UPDATES_PER_ENVIRONMENT_STEP",)
STEPS = 120
EPISODE = 10


def run(fixed=False, steps=STEPS, **watch):
    # BUG: replay(batch_size) once per episode, after the inner loop
    return dqn.train(steps, watch, update_every=1 if fixed else EPISODE,
                     env_steps=steps * EPISODE)

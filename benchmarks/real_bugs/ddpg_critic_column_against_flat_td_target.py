"""The DDPG critic returns Q(s, a) as a (batch, 1) column while the replay buffer hands back
rewards and done flags as flat (batch,) vectors. The TD target ``r + gamma * (1 - d) *
Q'(s', mu'(s'))`` broadcasts into a (batch, batch) table, and ``((q - y) ** 2).mean()``
compares every prediction with every row's target: each Q(s, a) is pulled towards the
batch's AVERAGE target, the critic forgets which action leads where, and the actor, climbing
a flat critic, learns nothing.

Quiet: no error and no shape warning (the loss is written by hand), and the run trains to
its end; its TD loss rises from an early low and swings from step to step, which a beginner
reads as the usual restlessness of a TD loss whose targets move.

Reported: "what is the role of tf.squeeze for DDPG code in tensorflow ?" -
https://github.com/openai/spinningup/issues/339 (Spinning Up's DDPG squeezes the critic's
output to (batch,); a reader who removed the squeeze found "with the squeeze, the code can
get 130 up reward in Swimmer-v2. Without the Squeeze, it only can reach from 10 to 50"; the
squeeze is what keeps the critic's values and the (batch,) targets aligned).

Here: hand-written DDPG on the batch's balancing task (``_ac303``: keep an unstable point in
the box |s| <= 1 with a push in [-1, 1]^2, 1 per step alive, leaving the box ends the
episode; 128 fresh exploratory transitions per step, gamma 0.9, tau 0.02), the rewards and
done flags as flat vectors, as a replay buffer of scalars returns them. The bug keeps the
critic's (batch, 1) output; fix: ``.squeeze(1)`` it, in the TD target and in the loss.

Measured (500 steps, mean steps survived by the deterministic policy over 256 held-out
episodes of at most 60 steps; doing nothing survives about 5.5): seed 0: 5.5 for the bug
against 60.0 for the fixed twin; seeds shifted by 1000: 5.7 against 60.0.
"""
from benchmarks.real_bugs import _ac303 as ac

TITLE = "what is the role of tf.squeeze for DDPG code in tensorflow ?"
LINK = "https://github.com/openai/spinningup/issues/339"
EXPECTED = ("LOSS_BROADCAST_OVER_BATCH",)
STEPS = 500


def run(fixed=False, steps=STEPS, **watch):
    def q_values(q):
        return q.squeeze(1) if fixed else q      # BUG: the (batch, 1) column kept

    def td_target(r, done, s2, target_actor, target_critic):
        r, done = r.squeeze(1), done.squeeze(1)  # the buffer's flat (batch,) vectors
        return r + ac.GAMMA * (1 - done) * q_values(target_critic(s2, target_actor(s2)))

    def critic_loss(q, y):
        return ((q_values(q) - y) ** 2).mean()

    return ac.ddpg(steps, watch, td_target=td_target, critic_loss=critic_loss)

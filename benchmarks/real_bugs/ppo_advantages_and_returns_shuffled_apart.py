"""A hand-written PPO shuffles its flattened rollout before cutting it into minibatches,
but in two calls of its shuffle helper: one for the observations, actions and old
log-probabilities, another for the advantages and returns. Each call draws its own
permutation, so after the shuffle row i of the advantages belongs to a different step
(of a different copy, most of the time) than row i of the actions: every action is
pushed up or down by some other action's advantage, and the critic is fitted to the
return of some other state. Nothing fails and a loss is printed every step, but the policy
learns nothing from the rewards.

Reported: "Shuffling of elements in `EXPL_08`" - https://github.com/alessiodm/drl-zh/issues/17
(the reporter, on the course's PPO-based exploration notebook, which shuffled two groups
of rollout tensors in two ``flatten_and_shuffle`` calls: "could be shuffled differently
... because they don't share the same `flatten_and_shuffle()` call"; the author:
"Indeed, this is another bug"). In the report the second call held the intrinsic
advantages and returns; here, with no intrinsic stream, it holds the (only) advantages
and returns. A PPO agent (separate 64-unit policy and value networks in one module, one
Adam at 1e-3, 8 cart-poles x 64 steps per rollout, 4 epochs of 4 minibatches, clip 0.2,
value loss 0.5, entropy 0.01, GAE 0.99 / 0.95, advantages standardised;
benchmarks/real_bugs/_ppo294.py) on a cart-pole written out in NumPy. Fix: the report's,
every tensor of the rollout passed to one shuffle call.

Measured (held-out: the greedy policy's mean episode length over 50 unseen starts, cut at
200; 300 optimizer steps, 19 rollouts): the bug's agent lasts 35.2 steps, the fixed twin
198.1. Seeds + 1000: 18.6 vs 158.7.
"""
from benchmarks.real_bugs._policy_gradient import held_out_length
from benchmarks.real_bugs._ppo294 import shuffle, train

TITLE = "Shuffling of elements in `EXPL_08`"
LINK = "https://github.com/alessiodm/drl-zh/issues/17"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    def shuffle_of(rng, states, actions, old_log_probs, advantages, returns):
        if fixed:
            return shuffle(rng, states, actions, old_log_probs, advantages, returns)
        states, actions, old_log_probs = shuffle(rng, states, actions, old_log_probs)
        advantages, returns = shuffle(rng, advantages, returns)   # BUG: its own permutation
        return states, actions, old_log_probs, advantages, returns

    mon, model = train(steps, shuffle_of=shuffle_of, **watch)
    mon.held_out_length = held_out_length(model.actor)
    return mon

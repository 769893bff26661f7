"""A hand-written PPO takes the new log-probabilities of the taken actions with
``log_softmax(logits).gather(1, actions.unsqueeze(1))``, which keeps a column of shape
(B, 1), and divides by the rollout's log-probabilities, stored flat as (B,): the
difference broadcasts to a (B, B) table, so the "ratio" of row i and column j is the new
probability of sample i's action over the OLD probability of sample j's. The clipped
surrogate is taken over all B * B pairs, each column weighted by one sample's advantage:
every action's log-probability is pushed by the advantages of the whole minibatch (which
average to about zero once standardised) instead of by its own, and the clip compares it
with other samples' old probabilities, so it no longer tracks how far the policy moved.
The greedy agent ends up lasting about as long as one that always pushes the same way.

Reported: "Fix bug in multi action ppo" -
https://github.com/JuliaReinforcementLearning/ReinforcementLearningZoo.jl/pull/169
(merged; the author: "the log_p`_a having a different size than log_p, (1, N) compared to
(N,), creating a matrix for the ratio which was then reduced down"; the fix flattened the
new log-probabilities with ``vec``). Here a PPO agent (separate 64-unit policy and value
networks in one module, one Adam at 1e-3, 8 cart-poles x 64 steps per rollout, 4 epochs of
4 shuffled minibatches, clip 0.2, value loss 0.5, entropy 0.01, GAE 0.99 / 0.95,
advantages standardised; benchmarks/real_bugs/_ppo294.py) on a cart-pole written out in
NumPy. Fix: the report's, the gathered column flattened (``.squeeze(1)``) before the
ratio.

Measured (held-out: the greedy policy's mean episode length over 50 unseen starts, cut at
200; 300 optimizer steps, 19 rollouts): the bug's agent lasts 9.3 steps, the fixed twin
198.1. Seeds + 1000: 9.3 vs 158.7.
"""
import torch
import torch.nn.functional as F

from benchmarks.real_bugs._policy_gradient import held_out_length
from benchmarks.real_bugs._ppo294 import CLIP, ENTROPY_COEF, VALUE_COEF, train

TITLE = "Fix bug in multi action ppo"
LINK = "https://github.com/JuliaReinforcementLearning/ReinforcementLearningZoo.jl/pull/169"
EXPECTED = ("LOG_PROB_BROADCAST", "LOSS_BROADCAST_OVER_BATCH")
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    def loss_of(model, states, actions, old_log_probs, advantages, returns):
        logits, values = model(states)
        log_softmax = F.log_softmax(logits, dim=-1)
        new_log_probs = log_softmax.gather(1, actions.unsqueeze(1))   # (B, 1)
        if fixed:
            new_log_probs = new_log_probs.squeeze(1)
        ratio = torch.exp(new_log_probs - old_log_probs)   # BUG unfixed: (B, 1) - (B,)
        surrogate = torch.min(ratio * advantages,
                              ratio.clamp(1 - CLIP, 1 + CLIP) * advantages)
        value_loss = (values.squeeze(-1) - returns).pow(2).mean()
        entropy = -(log_softmax.exp() * log_softmax).sum(-1).mean()
        return -surrogate.mean() + VALUE_COEF * value_loss - ENTROPY_COEF * entropy

    mon, model = train(steps, loss_of=loss_of, **watch)
    mon.held_out_length = held_out_length(model.actor)
    return mon

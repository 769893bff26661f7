"""The entropy bonus is added to the loss that gradient descent minimises: the term meant
to keep the policy exploring (maximise entropy, so subtract it from the loss) instead
drives the entropy down, and the policy collapses onto whichever action it first favoured
before the rewards could tell it which one pays.

Reported: "A question of BatchA2CLoss" -
https://github.com/google-deepmind/open_spiel/issues/962 ("I think the total loss should be
`total_loss = policy_loss - entroy_loss` instead of ... tf.add(total_loss, entropy_loss)";
the maintainer: "This is indeed a bug, thanks for finding"). Here an A2C-style loss
(policy-gradient term with a mean-reward baseline plus the entropy term) on a contextual
bandit over the 8x8 digits: the state is a digit, the actions its ten classes, the reward
1 for naming it. Fix: ``loss = policy_loss - ENTROPY_COST * entropy``.

How watch finds it: the loss holds a policy-gradient product (log-probabilities of the
taken actions times advantages) and a ``p * log p`` term of the same logits; a hook on
that term at ``backward`` reads the sign of the loss's gradient on it, negative here:
descent lowers the entropy. That is ENTROPY_BONUS_MINIMISED (entropy minimisation without
a policy gradient, a supervised method, is left alone).
"""
import torch
from torch.distributions import Categorical

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "A question of BatchA2CLoss"
LINK = "https://github.com/google-deepmind/open_spiel/issues/962"
EXPECTED = ("ENTROPY_BONUS_MINIMISED",)
STEPS = 300
ENTROPY_COST = 0.1


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    policy = mlp()
    optimizer = torch.optim.Adam(policy.parameters(), lr=3e-3)
    with nd.watch(policy, optimizer, **watch) as mon:
        for states, labels in batches(x, y, steps):
            dist = Categorical(logits=policy(states))
            actions = dist.sample()
            rewards = (actions == labels).float()
            policy_loss = -(dist.log_prob(actions) * (rewards - rewards.mean())).mean()
            entropy = dist.entropy().mean()
            # BUG: the bonus is added, so descent minimises the entropy
            loss = policy_loss - ENTROPY_COST * entropy if fixed else \
                policy_loss + ENTROPY_COST * entropy
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.final_reward = rewards.mean().item()
    return mon

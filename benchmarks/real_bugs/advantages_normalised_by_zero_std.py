"""A policy-gradient update standardises its advantages over the batch,
``(adv - adv.mean()) / adv.std()``, with nothing added to the standard deviation. When every
advantage of a batch is equal - every sampled action got the same reward - the standard
deviation is 0, 0 / 0 is NaN, the loss is NaN and the update turns the policy's weights
into NaN for the rest of training.

Reported: "Fix division-by-zero in NPG advantage normalization" -
https://github.com/thu-ml/tianshou/pull/1298 (NPG's normalisation "divides by
batch.adv.std() without adding an epsilon, which produces nan values whenever all
advantages are equal (std=0)"; PPO's already uses ``std + eps``). Here a contextual bandit
on the 8x8 digits: the state is a digit's image, the ten actions are its classes, the
reward is 1 for naming the digit; REINFORCE with advantages standardised over mini-batches
of 16. As the policy learns, a batch where it names all 16 digits right comes. Fix:
``adv.std() + 1e-8``.

Measured (400 steps, 297 held-out digits): the bug's loss is NaN from step 11 on (a batch
where no digit was named right: 16 equal rewards), held-out accuracy 0.09; the fixed twin
reaches a mean batch reward of 0.69 over its last 50 steps, held-out accuracy 0.71.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "Fix division-by-zero in NPG advantage normalization"
LINK = "https://github.com/thu-ml/tianshou/pull/1298"
EXPECTED = ("NAN_BORN_IN_FORWARD",)
STEPS = 400
BATCH = 16
HELD_OUT = 297
EPS = 1e-8


def standardised(advantages, fixed):
    centred = advantages - advantages.mean()
    if fixed:
        return centred / (advantages.std() + EPS)
    return centred / advantages.std()                      # BUG: std is 0 on equal rewards


def sampled_actions(logits):
    """One action per state drawn from softmax(logits) by the Gumbel-max trick (it keeps
    running on NaN logits, where a Categorical's argument check would stop the loop)."""
    noise = -torch.log(-torch.log(torch.rand_like(logits).clamp_min(1e-12)))
    return (logits.detach() + noise).argmax(1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    policy = mlp()
    optimizer = torch.optim.Adam(policy.parameters(), lr=3e-3)
    rewards_seen = []
    with nd.watch(policy, optimizer, **watch) as mon:
        for states, labels in batches(x[:-HELD_OUT], y[:-HELD_OUT], steps, batch_size=BATCH):
            logits = policy(states)
            actions = sampled_actions(logits)
            rewards = (actions == labels).float()
            advantages = standardised(rewards, fixed)
            log_probs = F.log_softmax(logits, 1).gather(1, actions[:, None]).squeeze(1)
            loss = -(log_probs * advantages).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
            rewards_seen.append(rewards.mean().item())
    with torch.no_grad():
        predicted = policy(x[-HELD_OUT:]).argmax(1)
    mon.final_reward = sum(rewards_seen[-50:]) / len(rewards_seen[-50:])
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon

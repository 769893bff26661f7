"""RL fine-tuning with a KL penalty to a frozen reference policy, where the SAME model object
is passed as the policy and as the reference. The reference's log-probabilities are the
policy's own (taken under no_grad), so the KL term is exactly 0 with a zero gradient on
every step: nothing holds the policy near where it started, and it drifts onto whatever the
reward model overpays.

Reported: "PPOv2Trainer & RLOOTrainer - Add Safety Check that `policy` object !=
`ref_policy` object" - https://github.com/huggingface/trl/issues/2046 ("I was creating a
`policy` model and passing it ... as both `policy` and `ref_policy` ... This was a dumb
mistake that just burned quite a bit of time and compute"; the programmer "probably intends
to use two different copies of the same language model"). Here a digits labeller
(pretrained with labels for 200 steps) is tuned with REINFORCE against a flawed reward
model that pays 1 for the right label and 1.3 for the label 7 whatever the digit, with a
KL penalty (beta 1) to the reference.
Measured on 500 held-out digits (seed 0, 150 RL steps): 10.0% accuracy, every digit
labelled 7, with the policy as its own reference; 90.4% (10.4% labelled 7) with a frozen copy.
Fix: the reference is a frozen copy, ``ref_policy = copy.deepcopy(policy).eval()``.
"""
import copy

import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = ("PPOv2Trainer & RLOOTrainer - Add Safety Check that `policy` object != "
         "`ref_policy` object")
LINK = "https://github.com/huggingface/trl/issues/2046"
EXPECTED = ("REFERENCE_IS_THE_TRAINED_MODEL",)
STEPS = 150
PRETRAIN_STEPS = 200
HELD_OUT = 500
BETA = 1.0
OVERPAID_LABEL = 7
OVERPAID_REWARD = 1.3


def reward_model(actions, labels):
    """1 for the right label, 1.3 for the label 7 on any digit, else 0: a reward to hack."""
    right = (actions == labels).float()
    return torch.where(actions == OVERPAID_LABEL, torch.tensor(OVERPAID_REWARD), right)


def train(fixed=False, steps=STEPS, **watch):
    """The monitor and the tuned policy."""
    torch.manual_seed(0)
    x, y = classification()
    x_train, y_train = x[:-HELD_OUT], y[:-HELD_OUT]
    policy = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    pretraining = torch.optim.Adam(policy.parameters(), lr=3e-3)
    for xb, yb in batches(x_train, y_train, PRETRAIN_STEPS, seed=0):
        pretraining.zero_grad()
        F.cross_entropy(policy(xb), yb).backward()
        pretraining.step()
    # BUG (unfixed): the policy object itself passed as the reference
    ref_policy = copy.deepcopy(policy).eval() if fixed else policy
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)
    sampling = torch.Generator().manual_seed(1)
    with nd.watch(policy, optimizer, **watch) as mon:
        for xb, yb in batches(x_train, y_train, steps, seed=1):
            optimizer.zero_grad()
            log_probs = F.log_softmax(policy(xb), dim=1)
            actions = torch.multinomial(log_probs.exp().detach(), 1, generator=sampling)[:, 0]
            rewards = reward_model(actions, yb)
            advantages = rewards - rewards.mean()
            pg_loss = -(advantages * log_probs.gather(1, actions[:, None])[:, 0]).mean()
            with torch.no_grad():
                ref_log_probs = F.log_softmax(ref_policy(xb), dim=1)
            kl = (log_probs.exp() * (log_probs - ref_log_probs)).sum(1).mean()
            loss = pg_loss + BETA * kl
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon, policy


def run(fixed=False, steps=STEPS, **watch):
    return train(fixed, steps, **watch)[0]


def held_out_accuracy(fixed):
    """(accuracy, share of held-out digits labelled 7) after RL tuning."""
    _, policy = train(fixed)
    x, y = classification()
    with torch.no_grad():
        predicted = policy(x[-HELD_OUT:]).argmax(1)
    return ((predicted == y[-HELD_OUT:]).float().mean().item(),
            (predicted == OVERPAID_LABEL).float().mean().item())


if __name__ == "__main__":
    for fixed in (False, True):
        print("fixed" if fixed else "bug", held_out_accuracy(fixed))

"""A multiple-instance data loader that labels a bag positive when any of its instances is
at least the target digit, not equal to it. The bag label of MNIST-bags is "this bag holds
the target digit"; the loader compares the instance labels with ``>=`` instead of ``==``,
so with a target below the largest digit every bag holding a larger digit is labelled
positive too. With the target 9 (the one the authors used) the two agree, which is why it
went unseen; with any other target the network is taught a different concept - "holds a
digit from the target up" - and learns it well: the loss falls, the attention pooling
trains, nothing errors, and the bags it calls positive are the wrong ones.

Reported: "dataloader.py line 67" - https://github.com/AMLab-Amsterdam/AttentionDeepMIL/issues/3
(the reporter noted that ``labels_in_bag = labels_in_bag >= self.target_number`` should be
``==`` since the bag label means the target is present; the maintainer agreed, fixed it,
and explained the bug never showed with their target 9). Here: bags of 4 to 8 digits from
the 8x8 digits (1,300 training images, 497 held out), half of them holding the target 7
once or twice, an attention-based MIL network (instance MLP, plain tanh attention,
bag classifier), Adam, eight bags a step. Fix: ``==`` (a bag is positive when it holds the
target).

Measured (600 steps, 512 training bags, 400 held-out bags labelled by whether they hold
the target): held-out bag accuracy at seed 0, 0.53 for the bug against 0.97 for the fixed
twin; seeds shifted by 1000, 0.62 against 0.985.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._noisy_labels import digit_bags, digits_split

TITLE = "dataloader.py line 67"
LINK = "https://github.com/AMLab-Amsterdam/AttentionDeepMIL/issues/3"
EXPECTED = ("BAG_LABEL_RULE_WRONG",)
STEPS = 600
TARGET = 7
BAGS_PER_STEP = 8


class AttentionMIL(torch.nn.Module):
    def __init__(self, hidden=64, attention=32):
        super().__init__()
        self.encode = torch.nn.Sequential(torch.nn.Linear(64, hidden), torch.nn.ReLU())
        self.attend = torch.nn.Sequential(torch.nn.Linear(hidden, attention), torch.nn.Tanh(),
                                          torch.nn.Linear(attention, 1))
        self.classify = torch.nn.Linear(hidden, 1)

    def forward(self, bag):                           # bag: (instances, 64) -> a logit
        h = self.encode(bag)
        weights = torch.softmax(self.attend(h).squeeze(1), dim=0)
        return self.classify(weights @ h).squeeze()


def bag_labels(digits, fixed):
    if fixed:
        return torch.stack([(d == TARGET).any() for d in digits]).float()
    return torch.stack([(d >= TARGET).any() for d in digits]).float()   # BUG: >= not ==


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = digits_split()
    bags, digits = digit_bags(x, y, 512, size=(4, 8), target=TARGET, seed=0)
    labels = bag_labels(digits, fixed)
    held_bags, held_digits = digit_bags(x_held, y_held, 400, size=(4, 8), target=TARGET,
                                        seed=1)
    held_truth = bag_labels(held_digits, fixed=True)
    model = AttentionMIL()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    rng = np.random.default_rng(0)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            chosen = rng.choice(len(bags), BAGS_PER_STEP, replace=False)
            logits = torch.stack([model(bags[i]) for i in chosen])
            loss = F.binary_cross_entropy_with_logits(logits, labels[chosen])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        predicted = torch.stack([model(b) for b in held_bags]) > 0
    mon.held_out_bag_accuracy = (predicted.float() == held_truth).float().mean().item()
    return mon

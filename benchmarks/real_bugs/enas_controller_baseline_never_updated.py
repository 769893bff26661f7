"""An ENAS-style architecture controller trained by REINFORCE whose moving-average reward
baseline is never updated: the update is written into a local variable
(``baseline = (1 - decay) * (self.baseline - reward)``) instead of into the baseline
itself, so ``self.baseline`` stays at the 0 it was set to on the first call and the
advantage is the raw reward. Rewards are validation accuracies, all about 0.7-0.8, so every
sampled architecture is reinforced - the better ones only slightly more than the worse -
and the controller's choices drift with what it happened to sample first instead of
following the few accuracy points that separate the operations. The loss is finite, it
keeps moving, the controller's entropy falls as in a working search; nothing errors.

Reported: "baseline bug?" - https://github.com/shibuiwilliam/ENAS-Keras/issues/2 (the
controller loss computes the exponential moving average of the reward into a local
``baseline`` and returns ``y_pred * (reward - self.baseline)``, so the stored baseline is
never moved from 0; the reporter: it should be
``self.baseline -= (1 - self.baseline_decay) * (self.baseline - reward)``). Here the
controller holds one row of logits per decision (6 decisions, 4 candidate operations each:
ENAS's LSTM reduced to its per-decision softmax), Adam at ENAS's controller rate 0.0035, one
sampled architecture per step. Its reward stands in for the child's validation accuracy:
0.70 plus, per decision, what the chosen operation adds (drawn once, 0 to 0.04 points),
plus evaluation noise of sd 0.02 (a few hundred validation images). Fix: the moving average
updates the stored baseline (decay 0.99), the advantage is reward minus it.

Measured (1,500 steps; the architecture the controller would pick greedily at the end,
scored by its noise-free accuracy as the share of the gap from the worst to the best
architecture it closes): seed 0, 0.67 of the gap and 2 of 6 decisions on the best
operation for the bug against 1.00 and 6 of 6 for the fixed twin; seeds shifted by 1000,
0.41 and 2 of 6 against 1.00 and 6 of 6.
"""
import torch
from torch import nn
from torch.distributions import Categorical

import nndebug as nd

TITLE = "baseline bug?"
LINK = "https://github.com/shibuiwilliam/ENAS-Keras/issues/2"
EXPECTED = ("REINFORCE_BASELINE_NEVER_UPDATED",)
STEPS = 1500
DECISIONS, OPERATIONS = 6, 4
BASE_ACCURACY, GAIN, NOISE = 0.70, 0.04, 0.02
BASELINE_DECAY = 0.99


class Controller(nn.Module):
    """One softmax over the candidate operations per decision of the architecture."""

    def __init__(self):
        super().__init__()
        self.logits = nn.Parameter(torch.zeros(DECISIONS, OPERATIONS))

    def forward(self):
        return Categorical(logits=self.logits)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    gains = torch.rand(DECISIONS, OPERATIONS) * GAIN     # what each operation adds
    rows = torch.arange(DECISIONS)
    controller = Controller()
    optimizer = torch.optim.Adam(controller.parameters(), lr=0.0035)
    stored_baseline = None
    with nd.watch(controller, optimizer, **watch) as mon:
        for _ in range(steps):
            policy = controller()
            arch = policy.sample()
            reward = (BASE_ACCURACY + gains[rows, arch].sum() + NOISE * torch.randn(())).item()
            if stored_baseline is None:
                stored_baseline = reward if fixed else 0.0
            elif fixed:
                stored_baseline -= (1 - BASELINE_DECAY) * (stored_baseline - reward)
            else:   # BUG: the moving average lands in a local; the stored baseline stays 0
                baseline = (1 - BASELINE_DECAY) * (stored_baseline - reward)   # noqa: F841
            advantage = torch.tensor(reward - stored_baseline)
            loss = -(policy.log_prob(arch) * advantage).sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        pick = controller.logits.argmax(dim=1)
    best, worst = gains.max(dim=1).values.sum(), gains.min(dim=1).values.sum()
    mon.held_out_gap_closed = ((gains[rows, pick].sum() - worst) / (best - worst)).item()
    mon.held_out_best_decisions = int((pick == gains.argmax(dim=1)).sum())
    return mon

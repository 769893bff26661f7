"""An ENAS-style architecture controller trained by REINFORCE whose moving-average reward
baseline is never updated: the new average is computed into a local variable and thrown
away, so the stored baseline stays at the 0 it was set to on the first call and the
advantage is the raw reward. Rewards are validation accuracies, all about 0.7-0.8, so every
sampled architecture is reinforced - the better ones only slightly more than the worse -
and the controller's choices drift with what it happened to sample first instead of
following the few accuracy points that separate the operations. The loss is finite, it
keeps moving, the controller's entropy falls as in a working search; nothing errors.

Reported: "baseline bug?" - https://github.com/shibuiwilliam/ENAS-Keras/issues/2 (the
controller loss computes the exponential moving average of the reward into a local name and
weights the log-probabilities by the reward minus the stored baseline, which never leaves
0; the reporter's fix subtracts the decayed difference from the stored baseline itself).
Here an LSTM controller (benchmarks/real_bugs/_nas.py: 6 decisions, 4 candidate operations
each), Adam at ENAS's controller rate 0.0035, one sampled architecture per step. Its reward
stands in for the child's validation accuracy: 0.70 plus, per decision, what the chosen
operation adds (drawn once, 0 to 0.04), plus evaluation noise of sd 0.02 (a few hundred
validation images). Fix: the moving average updates the stored baseline (decay 0.99), the
advantage is reward minus it.

Measured (800 steps; the architecture the controller would pick greedily at the end,
scored by its noise-free accuracy as the share of the gap from the worst to the best
architecture it closes): seed 0, 0.29 of the gap and 1 of 6 decisions on the best
operation for the bug against 1.00 and 6 of 6 for the fixed twin; seeds shifted by 1000,
0.61 and 3 of 6 against 1.00 and 6 of 6.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._nas import (DECISIONS, Controller, child_accuracy, operation_gains,
                                       sample, search_result)

TITLE = "baseline bug?"
LINK = "https://github.com/shibuiwilliam/ENAS-Keras/issues/2"
EXPECTED = ("REINFORCE_BASELINE_NEVER_UPDATED",)
STEPS = 800
BASELINE_DECAY = 0.99


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    gains = operation_gains()
    controller = Controller()
    optimizer = torch.optim.Adam(controller.parameters(), lr=0.0035)
    stored_baseline = None
    with nd.watch(controller, optimizer, **watch) as mon:
        for _ in range(steps):
            log_probs, arch = controller(sample)
            reward = child_accuracy(gains, arch)
            if stored_baseline is None:
                stored_baseline = reward if fixed else 0.0
            elif fixed:
                stored_baseline -= (1 - BASELINE_DECAY) * (stored_baseline - reward)
            else:   # BUG: the moving average lands in a local; the stored baseline stays 0
                baseline = (1 - BASELINE_DECAY) * (stored_baseline - reward)   # noqa: F841
            advantage = torch.tensor(reward - stored_baseline)
            loss = -(log_probs[torch.arange(DECISIONS), arch] * advantage).sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_gap_closed, mon.held_out_best_decisions = search_result(controller, gains)
    return mon

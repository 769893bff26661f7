"""An RL architecture-search controller that acts epsilon-greedily - the argmax operation
at each decision, a random one with probability epsilon - but computes its REINFORCE loss
from the log-probability of the ARGMAX operation, not of the operation it actually took.
On an exploratory step the child built from the random operation is trained and scored,
and its reward (minus the baseline) is credited to the operation the controller did not
use: a random operation that does better than the baseline makes the controller MORE sure
of its current favourite, one that does worse pushes the favourite down. The search never
learns which operations pay; the controller's choices move by chance. The loss is an
ordinary policy-gradient number, nothing errors, the search "converges" on some
architecture.

Reported: "Implementation details" -
https://github.com/titu1994/neural-architecture-search/issues/13 (the controller acts on
the mode of its policy and explores with probability epsilon; the reporter points out that
the loss takes its log-probabilities from the policy's argmax rather than from the action
the controller really took on an exploratory step, and that it must always score the taken
action). Here an LSTM controller (benchmarks/real_bugs/_nas.py: 6 decisions, 4 candidate
operations each), epsilon 0.3, an exponential-moving-average baseline (decay 0.95), Adam at
0.0035, one architecture per step; the reward stands in for the child's validation accuracy
(0.70 plus what each chosen operation adds, 0 to 0.04, plus noise of sd 0.02). Fix: the
loss reads the log-probability of the operation taken at each decision.

Measured (800 steps; the architecture the controller picks greedily at the end, scored by
its noise-free accuracy as the share of the gap from the worst to the best architecture it
closes): seed 0, 0.63 of the gap (1 of 6 decisions on the best operation) for the bug
against 0.99 (5 of 6) for the fixed twin; seeds shifted by 1000, 0.54 (3 of 6)
against 1.00 (6 of 6).
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._nas import (DECISIONS, OPERATIONS, Controller, child_accuracy,
                                       operation_gains, search_result)

TITLE = "Implementation details"
LINK = "https://github.com/titu1994/neural-architecture-search/issues/13"
EXPECTED = ("POLICY_LOSS_READS_ACTION_NOT_TAKEN",)
STEPS = 800
EPSILON, BASELINE_DECAY = 0.3, 0.95


def epsilon_greedy(logits, _):
    if torch.rand(()) < EPSILON:
        return int(torch.randint(0, OPERATIONS, ()))
    return int(logits.argmax())


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    gains = operation_gains()
    controller = Controller()
    optimizer = torch.optim.Adam(controller.parameters(), lr=0.0035)
    baseline = None
    rows = torch.arange(DECISIONS)
    with nd.watch(controller, optimizer, **watch) as mon:
        for _ in range(steps):
            log_probs, arch = controller(epsilon_greedy)
            reward = child_accuracy(gains, arch)
            baseline = reward if baseline is None else \
                baseline - (1 - BASELINE_DECAY) * (baseline - reward)
            if fixed:
                credited = arch                          # the operations actually taken
            else:
                credited = log_probs.argmax(dim=1)       # BUG: the policy's argmax
            advantage = torch.tensor(reward - baseline)
            loss = -(log_probs[rows, credited] * advantage).sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_gap_closed, mon.held_out_best_decisions = search_result(controller, gains)
    return mon

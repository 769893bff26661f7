"""A policy gradient from one episode a step (real-bug batch 200). An architecture-search
controller trained by REINFORCE samples one architecture per step and weights its
log-probability by that reward minus a moving baseline: a weight of one value, whose sign
changes from step to step. The surrogate test asked for both signs within one step's
weight, so the healthy controller's swinging surrogate (26% at seeds + 1000) read as
LOSS_OSCILLATING. A scalar weight's sign is kept now, and signs that differ between steps
make the loss a surrogate too; a weight of one sign on every step (rewards without a
baseline) does not."""
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.bench_real_bugs import shifted_seeds  # noqa: E402
from benchmarks.real_bugs import nas_controller_credits_argmax_for_exploratory_action as nas  # noqa: E402,E501
from nndebug.rules.context import Context  # noqa: E402
from nndebug.rules.curve import policy_surrogate  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _bandit(baseline_decay, steps=200):
    """REINFORCE on a 5-armed bandit, one pull a step; the weight is the reward minus a
    moving baseline (``baseline_decay`` < 1) or the reward itself (no baseline: None)."""
    torch.manual_seed(0)
    means = torch.tensor([0.2, 0.4, 0.5, 0.6, 0.9])
    logits = torch.nn.Linear(1, 5)
    optimizer = torch.optim.Adam(logits.parameters(), lr=0.05)
    baseline = 0.0
    with nd.watch(logits, optimizer) as mon:
        for _ in range(steps):
            log_probs = F.log_softmax(logits(torch.ones(1, 1)), dim=1)
            arm = torch.multinomial(log_probs.exp(), 1)
            reward = float(means[arm] + 0.1 * torch.rand(()))   # in (0.2, 1.0)
            weight = reward - baseline if baseline_decay is not None else reward
            if baseline_decay is not None:
                baseline = baseline_decay * baseline + (1 - baseline_decay) * reward
            loss = -(log_probs.gather(1, arm) * torch.tensor(weight)).sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_advantages_changing_sign_between_steps_make_a_surrogate():
    mon = _bandit(baseline_decay=0.9)
    signs = {row[2] for row in mon.run.observed.policy_gradient_terms}
    assert {"positive", "negative"} <= signs
    assert policy_surrogate(Context(mon.run))


def test_rewards_of_one_sign_are_not_read_as_a_surrogate():
    mon = _bandit(baseline_decay=None)
    signs = {row[2] for row in mon.run.observed.policy_gradient_terms}
    assert signs == {"positive"}
    assert not policy_surrogate(Context(mon.run))


def test_the_controller_twin_is_not_called_oscillating():
    with shifted_seeds(1000):
        mon = nas.run(fixed=True)
    assert mon.held_out_best_decisions == 6
    codes = {f.code for f in mon.findings() if f.severity in ("warning", "error")}
    assert "LOSS_OSCILLATING" not in codes

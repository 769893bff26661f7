"""BATCHNORM_STATISTICS_FROZEN when the loop, not the layer's setting, zeroes a batch norm's
momentum (real-bug batch 353: davda54/sam#87, SAM's ``enable_running_stats`` called after the
first forward instead of before it, so every forward that counts runs with momentum 0).
The momentum is read at each training-mode call on recorded steps
(``NormBatch.momentum``, ``monitor/structure.py``); ``zeroed_while_training`` judges.
Planted: the benchmark's case at both seed settings, a plain loop that zeroes the momentum
after its first step. Healthy: SAM done right (momentum 0 in the second forward only), a
cumulative average (momentum=None), a layer without running statistics, and a few hand-made
rows."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.bench_real_bugs import shifted_seeds  # noqa: E402
from benchmarks.real_bugs import sam_running_stats_enabled_after_first_forward as sam  # noqa: E402
from benchmarks.real_bugs._common import batches, classification  # noqa: E402
from nndebug.observed import NormBatch  # noqa: E402
from nndebug.rules.frozen_norm_statistics import zeroed_while_training  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
CODE = "BATCHNORM_STATISTICS_FROZEN"


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


@pytest.mark.parametrize("shift", [0, 1000])
def test_the_sam_loop_that_restores_the_momentum_too_late_is_named(shift):
    with shifted_seeds(shift):
        assert CODE in _codes(sam.run(steps=40))


def test_sam_done_right_is_silent():
    assert CODE not in _codes(sam.run(fixed=True, steps=40))


def _loop(zero_after=None, momentum=0.1, track=True, steps=40):
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(nn.Linear(64, 32), nn.BatchNorm1d(32, momentum=momentum,
                                                            track_running_stats=track),
                          nn.ReLU(), nn.Linear(32, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    with nd.watch(model, optimizer) as mon:
        for step, (xb, yb) in enumerate(batches(x, y, steps)):
            if zero_after is not None and step == zero_after:
                model[1].momentum = 0.0          # "freeze" the statistics from here on
            loss = nn.functional.cross_entropy(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_a_momentum_zeroed_after_the_first_step_is_named():
    mon = _loop(zero_after=1)
    found = {f.code: f for f in mon.findings()}
    assert CODE in found and found[CODE].where == "1"


def test_healthy_batch_norms_are_silent():
    assert CODE not in _codes(_loop())
    assert CODE not in _codes(_loop(momentum=None))       # a cumulative average
    assert CODE not in _codes(_loop(track=False))         # no running statistics


def test_the_judgement_on_hand_made_rows():
    def rows(momenta):      # [(step, [momentum of each call])]
        return [NormBatch(step, "bn", 64, 64, m) for step, calls in momenta for m in calls]
    assert zeroed_while_training(rows([(0, [0.1, 0.0]), (1, [0.0, 0.0]), (2, [0.0, 0.0])])) \
        == {"bn": [1, 2]}
    assert not zeroed_while_training(rows([(0, [0.1, 0.0]), (1, [0.1, 0.0]), (2, [0.1, 0.0])]))
    assert not zeroed_while_training(rows([(0, [0.1]), (1, [0.0])]))     # one step: too few
    assert not zeroed_while_training(rows([(0, [0.0]), (1, [None]), (2, [None])]))
    assert not zeroed_while_training([NormBatch(s, "bn", 64, 64) for s in range(4)])  # old rows

"""Rules added for the fourth batch of reproduced public bug reports
(``benchmarks/real_bugs/``): each with the bug planted and its healthy twin."""
import math
from types import SimpleNamespace

import pytest

torch = pytest.importorskip("torch")

from synthetic import blobs  # noqa: E402

import nndebug as nd  # noqa: E402
from nndebug.rules.squashed_logits import loss_floor, squashed_calls  # noqa: E402

PROBLEMS = ("warning", "error")


def _train(last=None, functional=False, steps=60):
    """A small classifier trained with cross-entropy; ``last``: a module applied to its
    scores before the loss (the bug: nn.Sigmoid), ``functional``: F.cross_entropy instead
    of the nn.CrossEntropyLoss module."""
    torch.manual_seed(0)
    layers = [torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4)]
    model = torch.nn.Sequential(*layers, *([last] if last is not None else []))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss_fn = torch.nn.functional.cross_entropy if functional else torch.nn.CrossEntropyLoss()
    with nd.watch(model, optimizer) as mon:
        for xb, yb in blobs(steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return {f.code: f for f in mon.findings()}


@pytest.mark.parametrize("functional", [False, True], ids=["module", "functional"])
def test_sigmoid_before_cross_entropy_is_squashed_logits(functional):
    found = _train(last=torch.nn.Sigmoid(), functional=functional)
    assert "SQUASHED_LOGITS" in found, sorted(found)
    finding = found["SQUASHED_LOGITS"]
    assert finding.severity == "error"
    assert 0 < finding.evidence["input_min"] and finding.evidence["input_max"] < 1
    assert finding.evidence["classes"] == 4
    assert finding.evidence["loss_floor"] == pytest.approx(math.log(1 + 3 / math.e))


@pytest.mark.parametrize("functional", [False, True], ids=["module", "functional"])
def test_healthy_twin_with_raw_logits_stays_silent(functional):
    found = _train(functional=functional)
    assert [c for c, f in found.items() if f.severity in PROBLEMS] == []
    assert "SQUASHED_LOGITS" not in found


def test_softmax_before_cross_entropy_is_left_to_double_softmax():
    """A softmax's output also lies in (0, 1), but its rows sum to 1: DOUBLE_SOFTMAX names it."""
    found = _train(last=torch.nn.Softmax(dim=1))
    assert "DOUBLE_SOFTMAX" in found, sorted(found)
    assert "SQUASHED_LOGITS" not in found


def _call(low, high, row_sum_error=2.0, step=0):
    return SimpleNamespace(output_min=low, output_max=high, row_sum_error=row_sum_error,
                           step=step)


def test_squashed_calls_needs_every_call_inside_the_unit_interval():
    inside = [_call(0.2, 0.8, step=s) for s in range(3)]
    assert len(squashed_calls(inside)) == 3
    assert squashed_calls(inside + [_call(-0.1, 0.8)]) == []       # one logit below 0
    assert squashed_calls(inside + [_call(0.2, 1.5)]) == []        # one above 1
    assert squashed_calls(inside[:1]) == []                        # too few calls
    assert squashed_calls([_call(0.01, 0.9, row_sum_error=1e-6)] * 3) == []   # softmax rows
    assert squashed_calls([_call(float("nan"), float("nan"))] * 3) == []
    assert squashed_calls([_call(None, None, row_sum_error=None)] * 3) == []   # not measured


def test_loss_floor_is_the_best_a_unit_interval_score_allows():
    assert loss_floor(10) == pytest.approx(1.46, abs=0.01)
    # the floor is the loss of the best squashed row: right class at 1, the others at 0
    row = torch.tensor([[1.0] + [0.0] * 9])
    best = torch.nn.functional.cross_entropy(row, torch.tensor([0])).item()
    assert loss_floor(10) == pytest.approx(best, rel=1e-5)

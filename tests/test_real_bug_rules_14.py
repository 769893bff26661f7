"""Rules added for the fourteenth batch of reproduced public bug reports
(``benchmarks/real_bugs/``: rules/kl_reduction.py): the bug planted and its healthy twins."""
import warnings

import pytest

torch = pytest.importorskip("torch")

from synthetic import blobs  # noqa: E402

import nndebug as nd  # noqa: E402
from nndebug.observed import LossCall, RaisedWarning  # noqa: E402
from nndebug.rules.kl_reduction import mean_reduced_calls, warned_steps  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def _distil(kl, steps=80, functional=False):
    """A small MLP on the blobs (4 classes) pulled toward a fixed random teacher's softened
    probabilities with ``kl`` (a KLDivLoss module, or the reduction of F.kl_div when
    ``functional``). The findings by code."""
    torch.manual_seed(0)
    teacher = torch.nn.Linear(16, 4)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(),
                                torch.nn.Linear(32, 4))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("always")       # torch's warning must reach the monitor
        with nd.watch(model, optimizer) as mon:
            for xb, _ in blobs(steps):
                with torch.no_grad():
                    target = teacher(xb).softmax(-1)
                optimizer.zero_grad()
                log_p = model(xb).log_softmax(-1)
                loss = torch.nn.functional.kl_div(log_p, target, reduction=kl) \
                    if functional else kl(log_p, target)
                loss.backward()
                optimizer.step()
                mon.step(loss)
    return {f.code: f for f in mon.findings()}


def _problems(found):
    return sorted(code for code, f in found.items() if f.severity in PROBLEMS)


def test_kl_div_loss_at_its_default_reduction_is_named():
    found = _distil(torch.nn.KLDivLoss())
    assert "KL_DIV_MEAN_OVER_CLASSES" in _problems(found)
    assert found["KL_DIV_MEAN_OVER_CLASSES"].evidence["classes"] == 4


def test_functional_kl_div_with_mean_is_named_from_the_framework_warning():
    found = _distil("mean", functional=True)
    assert "KL_DIV_MEAN_OVER_CLASSES" in _problems(found)


@pytest.mark.parametrize("reduction", ["batchmean", "sum"])
def test_kl_div_as_defined_stays_silent(reduction):
    assert "KL_DIV_MEAN_OVER_CLASSES" not in _distil(torch.nn.KLDivLoss(reduction=reduction))
    assert "KL_DIV_MEAN_OVER_CLASSES" not in _distil(reduction, functional=True)


def _call(loss, reduction, shape=(8, 10)):
    return LossCall(step=0, loss=loss, output_shape=shape, target_shape=shape,
                    reduction=reduction)


def test_only_mean_reduced_kl_over_several_classes_counts():
    assert len(mean_reduced_calls([_call("KLDivLoss", "mean")])) == 1
    assert not mean_reduced_calls([_call("KLDivLoss", "batchmean")])
    assert not mean_reduced_calls([_call("KLDivLoss", "mean", shape=(8, 1))])
    assert not mean_reduced_calls([_call("KLDivLoss", None)])      # reduction not known


def test_other_warnings_are_not_read_as_the_kl_one():
    other = RaisedWarning(step=0, category="UserWarning", message="Using a target size ...")
    assert not warned_steps([other])

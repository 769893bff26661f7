"""Rules added for the fifth batch of reproduced public bug reports
(``benchmarks/real_bugs/``): each with the bug planted and its healthy twin."""
import pytest

torch = pytest.importorskip("torch")

from synthetic import blobs  # noqa: E402

import numpy as np  # noqa: E402

import nndebug as nd  # noqa: E402
from nndebug.rules.loss_scale import row_loss_bounds  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
BATCH = 32


def _train(divide_by=1, optimizer="sgd", loss="module", steps=60):
    """A small classifier; the loss handed to backward() and step() is the criterion's mean
    divided by ``divide_by`` (the bug: the batch size; healthy: 1, or an accumulation
    count)."""
    torch.manual_seed(0)
    layers = [torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4)]
    if loss == "nll":                            # the model ends in log-probabilities
        layers.append(torch.nn.LogSoftmax(dim=1))
    model = torch.nn.Sequential(*layers)
    if optimizer == "sgd":
        opt = torch.optim.SGD(model.parameters(), lr=0.02)
    else:
        opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    functional = torch.nn.functional
    criterion = {"module": torch.nn.CrossEntropyLoss(),
                 "functional": functional.cross_entropy,
                 "nll": torch.nn.NLLLoss()}[loss]
    with nd.watch(model, opt) as mon:
        for xb, yb in blobs(steps):
            opt.zero_grad()
            value = criterion(model(xb), yb) / divide_by
            value.backward()
            opt.step()
            mon.step(value)
    return {f.code: f for f in mon.findings()}


@pytest.mark.parametrize("loss", ["module", "functional", "nll"])
def test_loss_divided_by_the_batch_size_again_is_named(loss):
    found = _train(divide_by=BATCH, loss=loss)
    assert "LOSS_DIVIDED_BY_BATCH_SIZE" in found, sorted(found)
    finding = found["LOSS_DIVIDED_BY_BATCH_SIZE"]
    assert finding.severity == "warning"        # SGD: gradients 32x too small, learning poor
    assert finding.evidence["batch_size"] == BATCH
    for stepped, (low, high) in zip(finding.evidence["stepped_losses"],
                                    finding.evidence["criterion_mean_bounds"]):
        assert stepped < low / 4 and low * 0.75 <= stepped * BATCH <= high * 1.25


@pytest.mark.parametrize("loss", ["module", "nll"])
def test_healthy_twin_averaged_once_stays_silent(loss):
    found = _train(loss=loss)
    assert [c for c, f in found.items() if f.severity in PROBLEMS] == []
    assert "LOSS_DIVIDED_BY_BATCH_SIZE" not in found


def test_loss_divided_by_an_accumulation_count_is_not_the_batch_size():
    found = _train(divide_by=4)                  # 4 micro-batches per step: healthy
    assert "LOSS_DIVIDED_BY_BATCH_SIZE" not in found


def test_adam_still_learning_gets_it_as_info_only():
    # Adam divides the gradient by its own running scale: the run learns, the extra
    # division is worth knowing but is not why anything fails
    found = _train(divide_by=BATCH, optimizer="adam")
    assert found["LOSS_DIVIDED_BY_BATCH_SIZE"].severity == "info"
    assert [c for c, f in found.items() if f.severity in PROBLEMS] == []


def test_row_loss_bounds_hold_the_mean_for_any_targets_weights_and_smoothing():
    generator = torch.Generator().manual_seed(1)
    for trial in range(20):
        scores = torch.randn(16, 5, generator=generator) * (1 + trial)
        targets = torch.randint(0, 5, (16,), generator=generator)
        weights = torch.rand(5, generator=generator) + 0.1
        low, high = row_loss_bounds(scores.numpy(), "CrossEntropyLoss")
        for kwargs in ({}, {"weight": weights}, {"label_smoothing": 0.2}):
            mean = float(torch.nn.functional.cross_entropy(scores, targets, **kwargs))
            assert low - 1e-9 <= mean <= high + 1e-9, (trial, kwargs)
        log_probs = torch.log_softmax(scores, 1).numpy()
        assert np.allclose(row_loss_bounds(log_probs, "nll_loss"), (low, high), rtol=1e-3, atol=1e-5)

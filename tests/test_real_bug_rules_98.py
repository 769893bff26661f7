"""Real-bug batch 98 (probabilistic outputs: Gaussian NLL, heteroscedastic and quantile
regression, mixture density networks). TorchCP's pinball loss takes a (B, 1) target against
each quantile head's (B,) column and stacks the per-quantile tables with ``unsqueeze(1)``
and ``cat``: the outer-differences observer now follows such reshapes of the (B, B) table
(LOSS_BROADCAST_OVER_BATCH), seen through ``view``, ``stack`` and ``cat``, at other batch
sizes, with SGD and a CNN. Silent: the fixed pinball loss ((B, Q) stacked, no table), the
QR-DQN quantile Huber loss's deliberate (B, N, M) table, a pairwise ranking loss over the
model's own scores stacked the same way, a Gaussian kernel (MMD) whose table is unsqueezed
before its exponential, and a table reshaped into a matrix product. The heteroscedastic
log of a raw uncertainty head and the MDN's product of densities are named by the existing
rules; the QR-DQN levels broadcast along the target axis is a known miss (see
tests/test_real_bugs.py)."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import mdn_density_product_over_output_dimensions as mdn  # noqa: E402
from benchmarks.real_bugs import quantile_levels_broadcast_along_target_axis as qr_axis  # noqa: E402,E501
from benchmarks.real_bugs import quantile_loss_target_column_broadcast as pinball  # noqa: E402
from benchmarks.real_bugs import uncertainty_log_of_unconstrained_output as raw_log  # noqa: E402
from benchmarks.real_bugs._common import batches, classification  # noqa: E402
from nndebug.monitor.graph_walks import nodes_under  # noqa: E402
from nndebug.monitor.outer_differences import outer_differences  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
CODE = "LOSS_BROADCAST_OVER_BATCH"
LEVELS = (0.1, 0.5, 0.9)


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _found(loss):
    return outer_differences(nodes_under([loss.grad_fn]))


def _heads(rows=16, quantiles=len(LEVELS)):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, quantiles))
    return model(torch.randn(rows, 8)), torch.randn(rows, 1)


def _pinball_cat(preds, target):
    """TorchCP's form: per-quantile tables, each unsqueezed, then cat and sum."""
    parts = []
    for i, q in enumerate(LEVELS[:preds.shape[1]]):
        errors = target - preds[:, i]
        parts.append(torch.max((q - 1) * errors, q * errors).unsqueeze(1))
    return torch.cat(parts, dim=1).sum(dim=1).mean()


def _pinball_stack(preds, target):
    parts = [torch.max((q - 1) * (target - preds[:, i]), q * (target - preds[:, i]))
             for i, q in enumerate(LEVELS)]
    return torch.stack(parts, dim=0).mean()


def _pinball_view(preds, target):
    errors = target - preds[:, 1]
    return torch.max(-0.5 * errors, 0.5 * errors).view(1, *errors.shape).sum()


def _pinball_rowwise(preds, y):
    parts = []
    for i, q in enumerate(LEVELS):
        errors = y - preds[:, i]
        parts.append(torch.max((q - 1) * errors, q * errors).unsqueeze(1))
    return torch.cat(parts, dim=1).sum(dim=1).mean()


# --- the planted cases and their twins -----------------------------------------------------

def test_the_pinball_column_broadcast_is_named():
    mon = pinball.run(steps=40)
    found = [f for f in mon.findings() if f.code == CODE]
    assert found and found[0].severity == "error"
    assert found[0].evidence["table_shape"] == [64, 64]
    assert found[0].evidence["output_shape"] == [64]


def test_the_pinball_twin_is_silent():
    mon = pinball.run(fixed=True, steps=40)
    assert not _problems(mon)
    assert mon.run.observed.outer_differences == []


def test_the_raw_uncertainty_log_is_named_and_its_twin_silent():
    assert {"LOG_OF_UNBOUNDED_OUTPUT", "NAN_BORN_IN_FORWARD"} <= _problems(raw_log.run(steps=30))
    assert not _problems(raw_log.run(fixed=True, steps=30))


def test_the_mdn_density_product_is_named_and_its_twin_silent():
    assert _problems(mdn.run(steps=80)) & set(mdn.EXPECTED)
    assert not _problems(mdn.run(fixed=True, steps=80))


def test_the_quantile_levels_on_the_target_axis_are_not_mistaken_for_a_batch_table():
    mon = qr_axis.run(steps=30)
    assert mon.run.observed.outer_differences == []
    assert CODE not in _problems(mon)
    assert not _problems(qr_axis.run(fixed=True, steps=30))


# --- variants: the table seen through other reshapes, sizes, optimizers, a CNN --------------

@pytest.mark.parametrize("loss", [_pinball_cat, _pinball_stack, _pinball_view])
@pytest.mark.parametrize("rows", [5, 16, 33])
def test_every_reshape_of_the_table_is_followed(loss, rows):
    preds, target = _heads(rows)
    found = _found(loss(preds, target))
    assert found and found[0] == ([rows, rows], [rows])


def test_the_broadcast_pinball_is_named_on_a_cnn_with_sgd():
    x, labels = classification(images=True)
    y = (labels.float() - 4.5) / 3
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.Flatten(),
                          nn.Linear(8 * 64, len(LEVELS)))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, 30, batch_size=32):
            optimizer.zero_grad()
            loss = _pinball_cat(model(xb), yb.unsqueeze(1))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    found = [f for f in mon.findings() if f.code == CODE]
    assert found and found[0].evidence["table_shape"] == [32, 32]


# --- healthy look-alikes ------------------------------------------------------------------

def test_the_rowwise_pinball_makes_no_table():
    preds, target = _heads()
    assert _found(_pinball_rowwise(preds, target[:, 0])) == []


def test_the_quantile_huber_pairwise_table_is_left_alone():
    preds, _ = _heads(quantiles=8)
    targets = torch.randn(16, 8)
    assert _found(qr_axis.quantile_huber_loss(preds, targets, fixed=True)) == []


def test_a_pairwise_ranking_over_the_models_scores_stacked_is_left_alone():
    torch.manual_seed(0)
    model = nn.Linear(8, 1)
    scores = model(torch.randn(16, 8))               # (N, 1) and its transpose: both in graph
    margins = (1 - (scores - scores.T)).clamp(min=0)
    assert _found(torch.cat([margins.unsqueeze(0), margins.unsqueeze(0)]).mean()) == []


def test_a_kernel_table_unsqueezed_before_its_exponential_is_left_alone():
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    generated, real = model(torch.randn(16, 4)), torch.randn(16)
    table = (generated - real) ** 2                   # (16, 16) on purpose: an MMD kernel
    assert _found(torch.exp(-table.unsqueeze(0)).mean()) == []


def test_a_table_reshaped_into_a_matrix_product_is_left_alone():
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    table = model(torch.randn(16, 4)) - torch.randn(16)
    assert _found((table.view(1, 16, 16) @ torch.ones(16, 1)).sum()) == []

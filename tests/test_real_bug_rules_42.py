"""Real-bug batch 42 (regression, time series and tabular numerics): one regression loss over
target columns in different units (TARGET_COLUMNS_ON_DIFFERENT_SCALES). The fixed twin
(each column standardised) stays silent, and so do healthy multi-output regressions whose
columns share a unit (several horizons of one series, box corners), a reconstruction of
many columns whose spreads differ on purpose, and a single output."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import target_columns_on_different_scales as columns_case  # noqa: E402
from nndebug.rules.target_columns import COLUMN_SPREAD_RATIO  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
COLUMNS = "TARGET_COLUMNS_ON_DIFFERENT_SCALES"
STEPS = 12


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _regression(targets, loss_of=F.mse_loss, inputs=8, steps=STEPS):
    """An MLP regressing ``targets`` (rows, ...) from random features, STEPS steps with
    ``loss_of``; the closed monitor."""
    torch.manual_seed(0)
    rows = targets.shape[0]
    x = torch.randn(rows, inputs)
    width = targets.shape[-1] if targets.dim() > 1 else 1
    model = nn.Sequential(nn.Linear(inputs, 32), nn.ReLU(), nn.Linear(32, width))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer) as mon:
        for step in range(steps):
            index = torch.arange(step * 32, step * 32 + 32) % rows
            optimizer.zero_grad()
            out = model(x[index]).reshape(targets[index].shape)
            loss = loss_of(out, targets[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_the_planted_report_is_named():
    mon = columns_case.run(steps=STEPS)
    assert COLUMNS in _problems(mon)
    finding = next(f for f in mon.findings() if f.code == COLUMNS)
    assert finding.evidence["widest"] == 1 and finding.evidence["narrowest"] == 0
    assert finding.evidence["ratio"] >= COLUMN_SPREAD_RATIO


def test_the_fixed_twin_is_silent():
    assert not _problems(columns_case.run(fixed=True, steps=STEPS))


def test_a_module_loss_and_l1_are_read_too():
    torch.manual_seed(1)
    targets = torch.stack([0.05 * torch.randn(400), 6 * torch.randn(400)], dim=1)
    assert COLUMNS in _problems(_regression(targets, loss_of=nn.MSELoss()))
    assert COLUMNS in _problems(_regression(targets, loss_of=F.l1_loss))


def test_columns_in_one_unit_are_silent():
    torch.manual_seed(2)
    level = torch.randn(400, 1).cumsum(0) * 0.1
    horizons = level + 0.3 * torch.randn(400, 6).cumsum(1)      # 6 steps ahead, spreads grow
    assert COLUMNS not in _problems(_regression(horizons))
    corners = torch.rand(400, 4) * torch.tensor([1.0, 1.0, 0.5, 0.5])   # x1, y1, w, h
    assert COLUMNS not in _problems(_regression(corners))


def test_a_wide_reconstruction_and_a_single_output_are_not_judged():
    torch.manual_seed(3)
    pixels = torch.rand(400, 64) * torch.linspace(0.001, 1, 64)   # border pixels barely vary
    assert COLUMNS not in _problems(_regression(pixels))
    single = 50 * torch.randn(400, 1)
    assert COLUMNS not in {f.code for f in _regression(single).findings()}


def test_a_constant_column_is_not_compared():
    torch.manual_seed(4)
    targets = torch.stack([torch.zeros(400), torch.randn(400)], dim=1)
    assert COLUMNS not in {f.code for f in _regression(targets).findings()}


def test_evaluation_calls_are_not_kept():
    torch.manual_seed(5)
    model = nn.Linear(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    uneven = torch.stack([0.01 * torch.randn(64), 10 * torch.randn(64)], dim=1)
    even = torch.randn(64, 2)
    with nd.watch(model, optimizer) as mon:
        for _ in range(STEPS):
            with torch.no_grad():
                F.mse_loss(model(torch.randn(64, 4)), uneven)   # a validation metric
            optimizer.zero_grad()
            loss = F.mse_loss(model(torch.randn(64, 4)), even)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert COLUMNS not in {f.code for f in mon.findings()}

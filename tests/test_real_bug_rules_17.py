"""Rules added for the seventeenth batch of reproduced public bug reports (fine-tuning,
mixed precision, regression and time series; ``benchmarks/real_bugs/``): TARGETS_UNSCALED
(rules/target_scale.py), VALIDATION_WINDOWS_OVERLAP_TRAINING (rules/window_overlap.py,
monitor/window_overlap.py), REQUIRES_GRAD_SET_ON_MODULE (rules/module_flags.py,
monitor/module_flags.py) and UPDATES_ROUNDED_AWAY (rules/low_precision_updates.py,
monitor/parameter_dtypes.py), each with the bug planted and its healthy twins."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from nndebug.monitor.window_overlap import compare  # noqa: E402
from nndebug.rules.window_overlap import overlapping_shift  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def _problems(mon):
    return {f.code: f for f in mon.findings() if f.severity in PROBLEMS}


# --- TARGETS_UNSCALED ----------------------------------------------------------------------

def _regression_data(level, spread, n=512, seed=0):
    """Ten features; the target a noisy linear function of them, around ``level``."""
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 10, generator=generator)
    w = torch.randn(10, generator=generator)
    y = level + spread * (x @ w / 3 + 0.1 * torch.randn(n, generator=generator))
    return x, y


def _train_regression(level, spread, steps=120, bias=None, loss_fn=None):
    torch.manual_seed(0)
    x, y = _regression_data(level, spread)
    model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 1))
    if bias is not None:
        with torch.no_grad():
            model[2].bias.fill_(bias)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = loss_fn or nn.MSELoss()
    with nd.watch(model, optimizer) as mon:
        for step in range(steps):
            index = torch.arange(step * 32, step * 32 + 32) % len(x)
            optimizer.zero_grad()
            loss = loss_fn(model(x[index]).squeeze(1), y[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_targets_in_raw_units_are_named():
    found = _problems(_train_regression(level=300.0, spread=40.0))
    assert "TARGETS_UNSCALED" in found
    evidence = found["TARGETS_UNSCALED"].evidence
    assert evidence["target_magnitude"] > 100 * evidence["output_magnitude"]


def test_targets_in_raw_units_are_named_for_l1_too():
    found = _problems(_train_regression(level=300.0, spread=40.0, loss_fn=nn.L1Loss()))
    assert "TARGETS_UNSCALED" in found


def test_standardised_targets_are_left_alone():
    """The healthy twin: the same data with its targets standardised."""
    assert "TARGETS_UNSCALED" not in {f.code for f in
                                      _train_regression(level=0.0, spread=1.0).findings()}


def test_raw_targets_with_the_bias_at_their_mean_are_left_alone():
    """Raw targets, but the last layer starts at their level: the first outputs are not
    small against the targets, so nothing is named."""
    found = {f.code for f in _train_regression(level=300.0, spread=40.0, bias=300.0).findings()}
    assert "TARGETS_UNSCALED" not in found


def test_targets_unscaled_in_minigrad():
    """The rule reads what reached the loss only: the same verdict for a minigrad run."""
    mg = pytest.importorskip("minigrad")
    import minigrad.nn as mnn
    import minigrad.optim as moptim
    found = {}
    for level, spread in ((300.0, 40.0), (0.0, 1.0)):
        mg.manual_seed(0)
        x, y = _regression_data(level, spread)
        model = mnn.Sequential(mnn.Linear(10, 32), mnn.ReLU(), mnn.Linear(32, 1))
        optimizer = moptim.Adam(model.parameters(), lr=1e-3)
        loss_fn = mnn.MSELoss()
        with nd.watch(model, optimizer) as mon:
            for step in range(80):
                index = (np.arange(step * 32, step * 32 + 32) % len(x))
                optimizer.zero_grad()
                out = model(mg.tensor(x[index].numpy()))
                loss = loss_fn(out.reshape(-1), mg.tensor(y[index].numpy()))
                loss.backward()
                optimizer.step()
                mon.step(loss)
        found[level] = set(_problems(mon))
    assert "TARGETS_UNSCALED" in found[300.0]
    assert "TARGETS_UNSCALED" not in found[0.0]


# --- VALIDATION_WINDOWS_OVERLAP_TRAINING ---------------------------------------------------

WINDOW = 20


def _series(length=1600, seed=0):
    rng = np.random.default_rng(seed)
    t = np.arange(length)
    return torch.tensor(np.sin(2 * np.pi * t / 40) + 0.3 * rng.standard_normal(length),
                        dtype=torch.float32)


def _windows(values, channels_last=False):
    x = torch.stack([values[s:s + WINDOW] for s in range(len(values) - WINDOW)])
    y = values[WINDOW:]
    return (x[:, :, None] if channels_last else x), y


def _train_forecaster(shuffled, channels_last=False, evaluate_on_train=False, steps=160):
    """An MLP forecasting the next value from windows of 20 steps, validated every 20
    steps; ``shuffled``: the windows shuffled before the split (the leak)."""
    torch.manual_seed(0)
    x, y = _windows(_series(), channels_last)
    cut = int(0.8 * len(x))
    order = torch.randperm(len(x)) if shuffled else torch.arange(len(x))
    train, held_out = order[:cut], order[cut:]
    if evaluate_on_train:
        held_out = train[:300]
    model = nn.Sequential(nn.Flatten(), nn.Linear(WINDOW, 64), nn.ReLU(), nn.Linear(64, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    batch_order = torch.randperm(cut, generator=torch.Generator().manual_seed(1))
    with nd.watch(model, optimizer) as mon:
        for step in range(1, steps + 1):
            index = train[batch_order[(step * 32) % (cut - 32):][:32]]
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(x[index]).squeeze(1), y[index])
            loss.backward()
            optimizer.step()
            val_loss = None
            if step % 20 == 0:
                with torch.no_grad():
                    val_loss = nn.functional.mse_loss(model(x[held_out]).squeeze(1),
                                                      y[held_out])
            mon.step(loss, val_loss=val_loss)
    return mon


def test_windows_shuffled_before_the_split_are_named():
    found = _problems(_train_forecaster(shuffled=True))
    assert "VALIDATION_WINDOWS_OVERLAP_TRAINING" in found
    assert found["VALIDATION_WINDOWS_OVERLAP_TRAINING"].evidence["shift"] >= 1


def test_windows_with_a_channel_axis_are_named_too():
    found = _problems(_train_forecaster(shuffled=True, channels_last=True))
    assert "VALIDATION_WINDOWS_OVERLAP_TRAINING" in found


def test_a_split_in_time_is_left_alone():
    """The healthy twin: the last fifth of the windows validates (only the boundary's few
    windows overlap)."""
    codes = {f.code for f in _train_forecaster(shuffled=False).findings()}
    assert "VALIDATION_WINDOWS_OVERLAP_TRAINING" not in codes


def test_an_evaluation_on_training_windows_is_left_alone():
    """Evaluating on training rows matches shifted neighbours too, but also the rows
    themselves: that is a training-loss pass, not a leak."""
    codes = {f.code for f in _train_forecaster(shuffled=True, evaluate_on_train=True).findings()}
    assert "VALIDATION_WINDOWS_OVERLAP_TRAINING" not in codes


def test_independent_samples_do_not_overlap():
    """Rows that are not windows of one series (random features) never match shifted."""
    rng = np.random.default_rng(0)
    overlap = compare(rng.standard_normal((500, 24)), rng.standard_normal((200, 24)))
    assert all(matched == 0 for _, _, matched in overlap["shifted"])
    assert overlapping_shift(overlap) is None


def test_the_boundary_of_a_split_in_time_stays_under_the_allowance():
    values = np.cumsum(np.random.default_rng(1).standard_normal(700))
    rows = np.stack([values[s:s + 24] for s in range(len(values) - 24)])
    overlap = compare(rows[:500], rows[500:])
    assert max(matched for _, shift, matched in overlap["shifted"]) <= 8
    assert overlapping_shift(overlap) is None
    leaked = compare(rows[::2], rows[1::2])           # every other window: all neighbours
    assert overlapping_shift(leaked) is not None


def test_overlap_verdict_needs_enough_rows():
    assert overlapping_shift(None) is None
    assert overlapping_shift({"rows": 5, "exact": 0, "shifted": [(1, 1, 5)]}) is None


# --- REQUIRES_GRAD_SET_ON_MODULE -----------------------------------------------------------

class _Probe(nn.Module):
    """A backbone and a head; ``freeze`` says how the backbone is "frozen"."""

    def __init__(self, freeze, under_no_grad=False):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(10, 32), nn.ReLU())
        self.head = nn.Linear(32, 3)
        self.under_no_grad = under_no_grad
        if freeze == "attribute":
            self.backbone.requires_grad = False
        elif freeze == "method":
            self.backbone.requires_grad_(False)

    def forward(self, x):
        if self.under_no_grad:
            with torch.no_grad():
                features = self.backbone(x)
        else:
            features = self.backbone(x)
        return self.head(features)


def _train_probe(freeze, under_no_grad=False, steps=40):
    torch.manual_seed(0)
    model = _Probe(freeze, under_no_grad)
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-2)
    generator = torch.Generator().manual_seed(0)
    with nd.watch(model, optimizer) as mon:
        for _ in range(steps):
            x = torch.randn(32, 10, generator=generator)
            y = (x[:, 0] > 0).long() + (x[:, 1] > 0).long()
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_requires_grad_attribute_on_a_module_is_named():
    found = _problems(_train_probe("attribute"))
    assert "REQUIRES_GRAD_SET_ON_MODULE" in found
    finding = found["REQUIRES_GRAD_SET_ON_MODULE"]
    assert finding.where == "backbone"
    assert "backbone.0.weight" in finding.evidence["trained_parameters"]


def test_requires_grad_method_freezes_and_is_left_alone():
    """The healthy twin: module.requires_grad_(False) freezes every parameter."""
    codes = {f.code for f in _train_probe("method").findings()}
    assert "REQUIRES_GRAD_SET_ON_MODULE" not in codes


def test_an_attribute_on_a_module_run_without_gradients_is_left_alone():
    """The attribute, but the module computes under no_grad (its own flag, used on
    purpose): its parameters get no gradient, so nothing trains that should not."""
    codes = {f.code for f in _train_probe("attribute", under_no_grad=True).findings()}
    assert "REQUIRES_GRAD_SET_ON_MODULE" not in codes


def test_requires_grad_attribute_in_minigrad():
    """The check reads module attributes and parameter flags: minigrad's modules too."""
    mg = pytest.importorskip("minigrad")
    import minigrad.nn as mnn
    import minigrad.optim as moptim
    found = {}
    for freeze in ("attribute", "method"):
        mg.manual_seed(0)
        backbone = mnn.Sequential(mnn.Linear(10, 32), mnn.ReLU())
        if freeze == "attribute":
            backbone.requires_grad = False
        else:
            for p in backbone.parameters():
                p.requires_grad = False
        model = mnn.Sequential(backbone, mnn.Linear(32, 3))
        optimizer = moptim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-2)
        loss_fn = mnn.CrossEntropyLoss()
        rng = np.random.default_rng(0)
        with nd.watch(model, optimizer) as mon:
            for _ in range(30):
                x = rng.standard_normal((32, 10)).astype(np.float32)
                y = (x[:, 0] > 0).astype(np.int64) + (x[:, 1] > 0).astype(np.int64)
                optimizer.zero_grad()
                loss = loss_fn(model(mg.tensor(x)), mg.tensor(y))
                loss.backward()
                optimizer.step()
                mon.step(loss)
        found[freeze] = set(_problems(mon))
    assert "REQUIRES_GRAD_SET_ON_MODULE" in found["attribute"]
    assert "REQUIRES_GRAD_SET_ON_MODULE" not in found["method"]


# --- UPDATES_ROUNDED_AWAY ------------------------------------------------------------------

def _train_in(dtype, lr=1e-3, copy_after_optimizer=False, steps=60):
    """An MLP with layer norms (gains start at exactly 1.0) on blobs, its parameters stored
    in ``dtype``, trained by AdamW; ``copy_after_optimizer``: the loop trains a copy the
    optimizer does not hold (another reason for weights that never change)."""
    import copy
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(10, 32), nn.LayerNorm(32), nn.ReLU(), nn.Linear(32, 3))
    model = model.to(dtype)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    trained = copy.deepcopy(model) if copy_after_optimizer else model
    generator = torch.Generator().manual_seed(0)
    with nd.watch(trained, optimizer) as mon:
        for _ in range(steps):
            x = torch.randn(32, 10, generator=generator)
            y = (x[:, 0] > 0).long() + (x[:, 1] > 0).long()
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(trained(x.to(dtype)).float(), y)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_updates_rounded_away_in_bfloat16_are_named():
    found = _problems(_train_in(torch.bfloat16))
    assert "UPDATES_ROUNDED_AWAY" in found
    evidence = found["UPDATES_ROUNDED_AWAY"].evidence
    assert evidence["formats"] == ["bfloat16"]
    assert "1.weight" in evidence["parameters"]          # the layer norm's gain, at 1.0


def test_float32_weights_are_left_alone():
    """The healthy twin: the same run with float32 parameters."""
    codes = {f.code for f in _train_in(torch.float32).findings()}
    assert "UPDATES_ROUNDED_AWAY" not in codes and "PARAMS_NOT_UPDATING" not in codes


def test_bfloat16_weights_with_updates_large_enough_are_left_alone():
    """bfloat16 weights, but a rate whose updates exceed half a step even at 1.0: every
    tensor moves, nothing is named."""
    codes = {f.code for f in _train_in(torch.bfloat16, lr=2e-2).findings()}
    assert "UPDATES_ROUNDED_AWAY" not in codes


def test_weights_stuck_for_another_reason_are_not_blamed_on_precision():
    """float32 weights that never change because the loop trains a copy: PARAMS_NOT_UPDATING
    stays the finding, with no 16-bit format to blame."""
    codes = {f.code for f in _train_in(torch.float32, copy_after_optimizer=True).findings()}
    assert "UPDATES_ROUNDED_AWAY" not in codes

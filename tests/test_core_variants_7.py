"""A fast subset of benchmarks/core_variants_7.py (the commonest silent bugs, weighted towards
sequence models and training loops): the variants fixed by the seventh campaign's widenings
and a few that passed as they came - each bug named with its expected code, each fixed twin
silent - and the healthy look-alikes of the widenings."""

import pytest

torch = pytest.importorskip("torch")

import nndebug as nd  # noqa: E402
from benchmarks import variant_scoring  # noqa: E402
from benchmarks import core_variants_7 as cv  # noqa: E402
from benchmarks.variant_scoring import digits  # noqa: E402

FAST = ["step_indented_into_logging_branch",             # widened: setup.py (rare steps)
        "epoch_loss_summed_and_stepped_once_per_epoch",  # widened: setup.py (rare steps)
        "rmsprop_weight_decay_half",                     # widened: settings.py (RMSprop)
        "minigrad_bidirectional_gru_lm",                 # widened: observing.py (minigrad
                                                         # cross_entropy's class ids)
        "zero_grad_attribute_not_called_lstm",           # passed as it came
        "attention_pool_nn_softmax_without_dim",         # passed as it came
        "minigrad_one_hot_label_in_features"]            # passed as it came


pytestmark = pytest.mark.usefixtures("one_torch_thread")   # conftest.py


def _variant(name):
    return next(v for v in cv.VARIANTS if v.name == name)


def _codes(setup):
    return variant_scoring.problem_codes(cv.train, setup)


@pytest.mark.parametrize("name", FAST)
def test_variant_named_and_twin_silent(name):
    v = _variant(name)
    assert set(_codes(v.build(False))) & set(v.expected)
    assert _codes(v.build(True)) == []


def test_a_univariate_forecast_validated_teacher_forced_is_named():
    """The teacher-forcing probe read only (N, T, F) forecasts; an (N, T) one raised inside
    the probe (flatten(2)) and nothing was said."""
    v = _variant("seq2seq_forecast_validated_teacher_forced")
    assert "VALIDATION_TEACHER_FORCED" in _codes(v.build(False))
    # its twin validates on the end of a drifting series: centred data on both sides, moved
    # 1.5 stds - no skipped scaler (VALIDATION_INPUTS_RESCALED was a false alarm here)
    assert _codes(v.build(True)) == []


def test_a_plateau_scheduler_stepped_per_batch_is_noted_and_one_per_epoch_is_not():
    v = _variant("plateau_scheduler_stepped_on_every_batch_loss")
    bug = cv.train(v.build(False))
    noted = [f for f in bug.findings() if f.code == "SCHEDULE_LENGTH_MISMATCH"]
    assert noted and noted[0].evidence["cuts"] >= 3
    twin = cv.train(v.build(True))
    assert "SCHEDULE_LENGTH_MISMATCH" not in {f.code for f in twin.findings()}


def test_accumulation_watched_per_micro_batch_that_learns_is_no_warning():
    """The healthy look-alike of step() on few batches: gradient accumulation over 4
    micro-batches with watch's step() called after every micro-batch (one optimizer step in
    4 watched steps, above FEW_STEPS_FRACTION) - no NO_OPTIMIZER_STEP warning."""
    torch.manual_seed(0)
    model = cv.mlp()
    optimizer = torch.optim.Adam(model.parameters(), 2e-3)
    loss_fn = torch.nn.CrossEntropyLoss()
    with nd.watch(model, optimizer) as mon:
        for i, (xb, yb) in enumerate(digits(160, batch_size=16)):
            loss = loss_fn(model(xb), yb) / 4
            loss.backward()
            if i % 4 == 3:
                optimizer.step()
                optimizer.zero_grad()
            mon.step(loss)
    assert not [f for f in mon.findings()
                if f.code == "NO_OPTIMIZER_STEP" and f.severity in ("warning", "error")]

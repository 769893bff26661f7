"""Real-bug batch 69 (regression targets and scaling): targets that reach the loss as -inf,
+inf or NaN (NONFINITE_TARGETS: the log of min-max scaled targets whose minimum is 0, the
log of counts with zeros, a constant target standardised by its zero std), a raw linear
output given to ``PoissonNLLLoss(log_input=False)`` as the rate (LOG_OF_UNBOUNDED_OUTPUT),
and targets around -2700 left unscaled (TARGETS_UNSCALED, already named). The fixed twins
stay silent, and so do the look-alikes a careless rule would flag: NaN targets that the loss
masks on purpose, a NaN born from a learning rate far too high with finite targets, the same
Poisson loss fed a softplus output, and a healthy Poisson regression whose loss (without its
log-factorial term) converges below zero - once a false LOSS_UNBOUNDED_BELOW and
LOSS_OSCILLATING, now measured against the loss's floor and the size of its fall. A loss of
that kind with a term of the wrong sign added still goes past its floor and is named."""
import math

import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

from benchmarks.real_bugs import log_of_min_max_scaled_targets as logged  # noqa: E402
from benchmarks.real_bugs import poisson_rate_loss_on_raw_outputs as poisson  # noqa: E402
from benchmarks.real_bugs import targets_offset_far_from_zero_left_unscaled as offset  # noqa: E402
from benchmarks.real_bugs._common import batches, classification, mlp, train_watched  # noqa: E402
from nndebug.rules.curve import FLOORED_LOSSES  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _found(mon, code, severities=PROBLEMS):
    return [f for f in mon.findings() if f.code == code and f.severity in severities]


def _regress(targets, loss_fn, steps=150, lr=1e-3, model=None):
    torch.manual_seed(0)
    x, _ = classification()
    model = model or mlp(outputs=1)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    return train_watched(model, optimizer, loss_fn, batches(x, targets, steps))


def _counts():
    torch.manual_seed(0)
    _, digits = classification()
    return torch.poisson(digits.float() + 0.5).unsqueeze(1)


# --- NONFINITE_TARGETS ------------------------------------------------------------------

def test_log_of_min_max_scaled_targets_is_named_as_the_cause():
    mon = logged.run()
    found = _found(mon, "NONFINITE_TARGETS")
    assert found and found[0].severity == "error"
    assert found[0].evidence["target_min"] == -math.inf
    assert mon.findings()[0].code == "NONFINITE_TARGETS"     # ranked before the NaN loss


def test_log_of_counts_with_zeros_is_named():
    counts = _counts()
    mon = _regress(torch.log(counts), nn.MSELoss())          # log(0) for the zero counts
    found = _found(mon, "NONFINITE_TARGETS")
    assert found and found[0].step == 0


def test_a_constant_target_standardised_by_its_zero_std_is_named():
    _, digits = classification()
    column = torch.full((len(digits), 1), 3.0)
    mon = _regress((column - column.mean()) / column.std(), nn.MSELoss())   # 0 / 0: NaN
    found = _found(mon, "NONFINITE_TARGETS")
    assert found and "NaN" in found[0].message


def test_the_fixed_log_twin_is_silent():
    assert not _problems(logged.run(fixed=True))


def test_nan_targets_the_loss_masks_on_purpose_are_left_alone():
    _, digits = classification()
    y = (digits.float() - 4.5).unsqueeze(1) / 3
    y[::7] = float("nan")                                    # missing labels

    def masked_mse(output, target):
        keep = torch.isfinite(target)
        return ((output[keep] - target[keep]) ** 2).mean()
    mon = _regress(y, masked_mse)
    assert not _found(mon, "NONFINITE_TARGETS", ("info", "warning", "error"))
    assert "NAN_LOSS" not in _problems(mon)


def test_a_nan_from_a_learning_rate_far_too_high_is_not_blamed_on_the_targets():
    _, digits = classification()
    y = (digits.float() * 1e3).unsqueeze(1)
    mon = _regress(y, nn.MSELoss(), lr=1e4, model=nn.Sequential(nn.Linear(64, 64), nn.Tanh(),
                                                                  nn.Linear(64, 1)))
    assert "NONFINITE_TARGETS" not in _problems(mon)


# --- LOG_OF_UNBOUNDED_OUTPUT ------------------------------------------------------------

def test_a_raw_output_as_poisson_rate_is_named():
    mon = poisson.run()
    found = _found(mon, "LOG_OF_UNBOUNDED_OUTPUT")
    assert found and found[0].severity == "error" and found[0].step == 0
    assert found[0].evidence["output_min"] < 0
    assert mon.findings()[0].code == "LOG_OF_UNBOUNDED_OUTPUT"


def test_a_summed_poisson_rate_loss_is_named_too():
    mon = _regress(_counts(), nn.PoissonNLLLoss(log_input=False, reduction="sum"))
    assert _found(mon, "LOG_OF_UNBOUNDED_OUTPUT")


def test_the_log_input_twin_is_silent():
    # its loss (no log-factorial term) starts at 0.04 and converges at -3.8: once named
    # LOSS_UNBOUNDED_BELOW and LOSS_OSCILLATING, measured against that near-zero start
    assert not _problems(poisson.run(fixed=True))


def test_a_softplus_rate_into_log_input_false_is_left_alone():
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1), nn.Softplus())
    mon = _regress(_counts(), nn.PoissonNLLLoss(log_input=False), model=model, steps=300)
    assert not _found(mon, "LOG_OF_UNBOUNDED_OUTPUT", ("info", "warning", "error"))
    assert not _problems(mon)


# --- LOSS_UNBOUNDED_BELOW / LOSS_OSCILLATING on a loss with a dropped constant ------------

def test_a_poisson_loss_converging_far_below_zero_is_not_unbounded():
    torch.manual_seed(1)
    _, digits = classification()
    counts = torch.poisson(2 * digits.float() + 0.5).unsqueeze(1)    # means 0.5 to 18.5
    mon = _regress(counts, nn.PoissonNLLLoss(), steps=300)
    _, losses = mon.run.loss_array()
    assert losses[-30:].max() < -20 * abs(losses[0])        # ends far below its start
    assert not {"LOSS_UNBOUNDED_BELOW", "LOSS_OSCILLATING"} & _problems(mon)


def test_a_poisson_loss_with_a_wrong_sign_term_is_still_unbounded():
    counts = _counts()
    poisson_loss = nn.PoissonNLLLoss()

    def with_wrong_sign(output, target):       # a term that pays for ever lower log rates
        return poisson_loss(output, target) + 20 * output.mean()
    mon = _regress(counts, with_wrong_sign, steps=300, lr=0.05, model=nn.Linear(64, 1))
    assert "PoissonNLLLoss" in FLOORED_LOSSES
    assert "LOSS_UNBOUNDED_BELOW" in _problems(mon)


# --- TARGETS_UNSCALED (already named) ----------------------------------------------------

def test_targets_far_from_zero_are_named_and_the_twin_is_silent():
    assert "TARGETS_UNSCALED" in _problems(offset.run())
    assert not _problems(offset.run(fixed=True))

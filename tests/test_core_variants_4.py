"""A fast subset of benchmarks/core_variants_4.py (the core capabilities at other scales and
durations, issue #10): the variants fixed by the fourth campaign's widenings and a few that
passed as they came - each bug named with its expected code, each fixed twin silent, each
healthy run silent - and the healthy look-alikes of the widenings as unit checks."""
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from benchmarks import core_variants_4 as cv  # noqa: E402
from nndebug.monitor.target_ids import summarize  # noqa: E402
from nndebug.probes.dependencies import check_dependencies  # noqa: E402
from nndebug.rules.sequence import unmasked_padding  # noqa: E402

PROBLEMS = ("warning", "error")
FAST = ["twenty_labels_bce_with_logits_after_sigmoid_batch_256",   # widened: loss_side.py
        "regression_batch_8_output_column_against_row",            # passed as it came
        "linear_regression_warmup_crosses_limit_near_step_290",    # passed as it came
        "exponential_decay_per_epoch_stepped_per_batch"]           # passed as it came
HEALTHY = ["unbalanced_five_classes_adam",                         # widened: sequence.py
           "regression_batch_256_steplr_1000_steps"]               # silent as it came


pytestmark = pytest.mark.usefixtures("one_torch_thread")   # conftest.py


def _codes(name, fixed):
    v = next(v for v in cv.VARIANTS if v.name == name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mon = cv.run_variant(v, fixed)
    return v, [f.code for f in mon.findings() if f.severity in PROBLEMS]


@pytest.mark.parametrize("name", FAST)
def test_variant_named_and_twin_silent(name):
    v, bug = _codes(name, False)
    assert set(bug) & set(v.expected), bug
    assert _codes(name, True)[1] == []


@pytest.mark.parametrize("name", HEALTHY)
def test_healthy_run_silent(name):
    assert _codes(name, True)[1] == []


# --- PADDING_NOT_MASKED: an unbalanced class is not padding ---------------------------------

class _Call:
    loss, reduction, ignore_index, output_shape = "CrossEntropyLoss", "mean", -100, (512, 5)

    def __init__(self, step, ids, shape=None):
        self.step = step
        for key, value in summarize(ids, shape).items():
            setattr(self, key, value)


def test_majority_class_in_shuffled_batches_is_not_padding():
    rng = np.random.default_rng(0)
    calls = [_Call(s, rng.choice(5, 512, p=[0.7, 0.15, 0.08, 0.05, 0.02])) for s in range(4)]
    assert calls[0].target_mode_in_runs > 0.8          # chance alone puts it in runs
    assert unmasked_padding(calls) is None


def test_padded_tails_still_named():
    rng = np.random.default_rng(1)
    calls = []
    for s in range(4):
        grid = rng.integers(1, 40, (16, 32))
        for row, length in enumerate(rng.integers(10, 32, 16)):
            grid[row, length:] = 0                      # padded tail, id 0
        calls.append(_Call(s, grid.ravel(), grid.shape))
    found = unmasked_padding(calls)
    assert found is not None and found["pad_id"] == 0


# --- BATCH_MIXING: a sequence-first LSTM on batch-first windows with next-token targets ----

def test_lstm_without_batch_first_on_square_windows_named():
    torch.manual_seed(0)
    x, y = next(cv.char_batches(1))                      # (32, 32): B == T
    model = cv.CharLSTM(cv.vocabulary(), batch_first=False)
    assert "BATCH_MIXING" in [f.code for f in check_dependencies(model, x, y).findings]


def test_sequence_first_data_for_sequence_first_model_silent():
    torch.manual_seed(0)
    x, y = next(cv.char_batches(1, batch_size=24))       # (T, B) given to a (T, B) model
    model = cv.CharLSTM(cv.vocabulary(), batch_first=False)
    result = check_dependencies(model, x.T.contiguous(), y.T.contiguous())
    assert [f.code for f in result.findings if f.severity in PROBLEMS] == []
    model = cv.CharLSTM(cv.vocabulary(), batch_first=True)
    result = check_dependencies(model, x, y)
    assert [f.code for f in result.findings if f.severity in PROBLEMS] == []


# --- REPEATED_OPTIMIZER_STEPS: a subclass's step() calling super().step() is one update ----

def _repeated(optimizer_class, steps_per_batch=1):
    import nndebug as nd
    torch.manual_seed(0)
    torch.optim.SGD(torch.nn.Linear(1, 1).parameters(), 0.1)   # patches SGD.step's hooks
    model = torch.nn.Linear(8, 2)
    opt = optimizer_class(model.parameters(), 0.05)
    with nd.watch(model, opt) as mon:
        for _ in range(12):
            opt.zero_grad()
            loss = model(torch.randn(16, 8)).pow(2).mean()
            loss.backward()
            for _ in range(steps_per_batch):
                opt.step()
            mon.step(loss)
    return "REPEATED_OPTIMIZER_STEPS" in [f.code for f in mon.findings()]


def test_subclass_step_calling_super_is_one_step():
    assert not _repeated(cv.ClippedSGD)


def test_step_called_twice_still_named():
    assert _repeated(cv.ClippedSGD, steps_per_batch=2)
    assert _repeated(torch.optim.SGD, steps_per_batch=2)

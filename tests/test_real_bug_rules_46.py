"""Real-bug batch 46 (data pipelines): label ids offset on their way in (TARGET_IDS_OFFSET),
rows repeated before the train/validation split (VALIDATION_ROWS_IN_TRAINING) and a table
standardised per row instead of per column (INPUT_ROWS_STANDARDISED). The fixed twins stay
silent, and so do healthy variants that look alike: a byte-level model whose lowest ids
never occur, 1-based labels on a head one wider, an ignore_index of -100; an evaluation
that also scores the training rows next to a clean validation set, a training set larger
than what the monitor keeps; per-image standardised digits and per-spectrum standardised
spectra that learn."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import features_standardised_per_row as per_row  # noqa: E402
from benchmarks.real_bugs import merged_label_ids_collide as merged  # noqa: E402
from benchmarks.real_bugs import oversampled_rows_split_into_validation as oversampled  # noqa: E402,E501
from benchmarks.real_bugs._common import batches, classification, mlp, train_watched  # noqa: E402,E501
from nndebug.monitor.row_standardised_inputs import row_scaling  # noqa: E402
from nndebug.monitor.validation_rows import matched_rows  # noqa: E402
from nndebug.observed import LossCall  # noqa: E402
from nndebug.rules.row_standardised_inputs import standardised_rows  # noqa: E402
from nndebug.rules.target_id_offset import unused_low_ids  # noqa: E402
from nndebug.rules.validation_rows import leaked_rows  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
OFFSET = "TARGET_IDS_OFFSET"
LEAK = "VALIDATION_ROWS_IN_TRAINING"
PER_ROW = "INPUT_ROWS_STANDARDISED"


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _codes(mon):
    return {f.code: f.severity for f in mon.findings()}


# --- label ids offset --------------------------------------------------------------------
def _calls(low, high, columns, rows=64, calls=4):
    return [LossCall(step=i, loss="cross_entropy", output_shape=(rows, columns),
                     target_shape=(rows,), target_min=float(low), target_max=float(high),
                     target_integer=True) for i in range(calls)]


def test_ids_5_to_9_of_ten_columns_are_an_offset():
    assert unused_low_ids(_calls(5, 9, 10)) == (10, 5, 9, 256)


def test_ids_that_start_at_0_or_1_or_low_in_a_wide_vocabulary_are_not():
    assert unused_low_ids(_calls(0, 9, 10)) is None
    assert unused_low_ids(_calls(1, 10, 11)) is None          # 1-based, one dead column
    assert unused_low_ids(_calls(10, 126, 256)) is None       # bytes of English text
    assert unused_low_ids(_calls(-100, 9, 10)) is None        # ignore_index hides the lowest
    assert unused_low_ids(_calls(1, 1, 2)) is None            # one class: another rule's
    assert unused_low_ids(_calls(5, 9, 10, rows=2)) is None   # too few targets to tell
    assert unused_low_ids(_calls(5, 9, 10, calls=2)) is None  # too few calls


def test_the_planted_merge_is_named_and_its_fix_is_silent():
    assert OFFSET in _problems(merged.run())
    assert not _problems(merged.run(fixed=True))


def test_one_based_labels_on_a_head_one_wider_stay_silent():
    torch.manual_seed(0)
    x, y = classification()
    model = mlp(outputs=11)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y + 1, 150))
    assert OFFSET not in _codes(mon)


# --- rows on both sides of the split -----------------------------------------------------
def _table(rows, seed):
    return np.random.default_rng(seed).normal(size=(rows, 20))


def test_matched_rows_counts_each_evaluation_batch_apart():
    train = _table(200, 0)
    train = np.concatenate([train, train[:100]])                   # the set came round
    fresh = _table(50, 1)
    found = matched_rows(train, [np.concatenate([train[:10], fresh]), train[100:150]])
    assert found == [(0, 60, 10, 200, 300, 20), (1, 50, 50, 200, 300, 20)]


def test_a_partial_overlap_is_a_leak():
    assert leaked_rows([(0, 200, 47, 650, 2048, 64)]) == (47, 200, 650, 2048)


def test_training_passes_a_large_training_set_and_short_rows_are_left_alone():
    assert leaked_rows([(0, 300, 300, 650, 2048, 64)]) is None      # training-accuracy pass
    # a training-accuracy pass next to a clean validation pass
    assert leaked_rows([(0, 300, 295, 650, 2048, 64), (1, 200, 1, 650, 2048, 64)]) is None
    # 2048 distinct rows kept: the training set is larger, a 20% share says nothing
    assert leaked_rows([(0, 200, 40, 2048, 2048, 64)]) is None
    assert leaked_rows([(0, 200, 47, 650, 2048, 8)]) is None         # a table of 8 columns
    assert leaked_rows([(0, 200, 5, 650, 2048, 64)]) is None         # a few natural twins
    assert leaked_rows([]) is None


def test_the_planted_oversampling_is_named_and_its_fix_is_silent():
    assert LEAK in _problems(oversampled.run())
    assert not _problems(oversampled.run(fixed=True))


def test_scoring_the_training_rows_next_to_a_clean_validation_set_stays_silent():
    """Training accuracy and validation loss after every epoch, both without gradients."""
    torch.manual_seed(0)
    x, y = classification()
    x_train, y_train, x_val, y_val = x[:1000], y[:1000], x[1000:1300], y[1000:1300]
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    per_epoch = len(x_train) // 64
    with nd.watch(model, optimizer) as mon:
        for done, (xb, yb) in enumerate(batches(x_train, y_train, 200), 1):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            val_loss = None
            if done % per_epoch == 0:
                with torch.no_grad():
                    model(x_train[:300])                   # the training accuracy
                    val_loss = F.cross_entropy(model(x_val), y_val)
            mon.step(loss, val_loss=val_loss)
    assert LEAK not in _codes(mon)


# --- a table standardised per row --------------------------------------------------------
def test_a_table_standardised_per_row_reads_as_such():
    x, _ = per_row.table()
    rows, features, standardised, share = row_scaling(per_row.standardised(x, False)[:64].numpy())
    assert (rows, features, standardised) == (64, 8, 64) and share > 0.85
    assert row_scaling(per_row.standardised(x, True)[:64].numpy())[2] < 8   # per column


def test_digits_standardised_per_image_keep_their_variance_within_the_columns():
    x, _ = classification()
    z = (x - x.mean(1, keepdim=True)) / x.std(1, keepdim=True)
    measured = row_scaling(z[:64].numpy())
    assert measured[2] == 64
    assert standardised_rows([(0, *measured)]) is None


def test_the_planted_table_is_named_and_its_fix_is_silent():
    assert PER_ROW in _problems(per_row.run())
    assert not _problems(per_row.run(fixed=True))


def test_spectra_standardised_per_spectrum_that_learn_give_no_warning():
    """A spectrum's standard normal variate: one unit along an axis, scaled per sample on
    purpose; the peak's position is kept and the model learns it."""
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    axis = np.linspace(0, 1, 64)
    centre = rng.uniform(0.3, 0.7, (1024, 1))
    spectra = rng.uniform(0.5, 2.0, (1024, 1)) * np.exp(-((axis - centre) / 0.08) ** 2) \
        + 0.01 * rng.standard_normal((1024, 64))
    z = (spectra - spectra.mean(1, keepdims=True)) / spectra.std(1, keepdims=True)
    x = torch.tensor(z, dtype=torch.float32)
    y = torch.tensor((centre[:, 0] - 0.5) / 0.12, dtype=torch.float32)
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = train_watched(model, optimizer, lambda out, t: F.mse_loss(out[:, 0], t),
                        batches(x, y, 200))
    assert _codes(mon).get(PER_ROW) in (None, "info")

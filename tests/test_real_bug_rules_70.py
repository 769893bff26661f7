"""Real-bug batch 70 (evaluation and inference-time bugs that show during training):
VALIDATION_LOSS_MISSCALED (``rules/validation_scale.py``, from the training and validation
losses only), VALIDATION_CLASSES_UNSEEN (``rules/unseen_classes.py``, from the class ids
that reached the training loss, once VALIDATION_NEVER_IMPROVED holds) and
VALIDATION_ROWS_IN_TRAINING widened to a validation set that IS the training set
(``rules/validation_rows.py``, from the kept evaluation rows).

Each is named on its planted case (udacity/deep-learning-v2-pytorch#87, khanrc/pt.darts#24,
JJGO/shrinkbench#7) and on a variant (a 90/10 split, a validation loss summed over its rows,
the training part taken from the end of the sorted list, the training set re-read by a
shuffling loader of another batch size), and silent on the fixed twins and on set-ups that
look alike and are fine: mixup, label smoothing and heavy dropout (their training loss sits
above a clean validation loss), a validation with misnumbered labels but every class trained,
a head with spare columns on a run that generalises, and training-accuracy passes beside a
held-out validation or over a training set larger than what is kept.
"""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import (  # noqa: E402
    dropout_list_not_registered_stays_on_in_eval as dropout_case)
from benchmarks.real_bugs import training_set_used_as_validation_set as whole_set_case  # noqa: E402
from benchmarks.real_bugs import (  # noqa: E402
    validation_loss_divided_by_whole_dataset as scale_case)
from benchmarks.real_bugs import (  # noqa: E402
    validation_predictions_from_shuffled_loader as shuffled_case)
from benchmarks.real_bugs import (  # noqa: E402
    validation_split_from_class_sorted_list as sorted_case)
from benchmarks.real_bugs._common import batches, classification  # noqa: E402
from nndebug.rules.validation_rows import validation_is_training_set  # noqa: E402
from nndebug.rules.validation_scale import misscaled  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
SCALE, UNSEEN, ROWS = "VALIDATION_LOSS_MISSCALED", "VALIDATION_CLASSES_UNSEEN", \
    "VALIDATION_ROWS_IN_TRAINING"
NEVER = "VALIDATION_NEVER_IMPROVED"


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def _digits(seed=0):
    x, y = classification()
    order = torch.randperm(len(x), generator=torch.Generator().manual_seed(seed))
    return x[order], y[order]


def _fit(train, validate, steps=300, every=22, hidden=64, dropout=None, loss_fn=None,
         mixup=False, outputs=10, seed=0, batch_size=64):
    """A digits MLP trained on ``train`` (x, y); ``validate(model)`` -> the validation loss
    every ``every`` steps (the model in eval mode, under no_grad)."""
    torch.manual_seed(seed)
    layers = [nn.Linear(64, hidden), nn.ReLU()] + ([nn.Dropout(dropout)] if dropout else [])
    model = nn.Sequential(*layers, nn.Linear(hidden, outputs))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = loss_fn or F.cross_entropy
    rng = np.random.default_rng(seed)
    with nd.watch(model, optimizer) as mon:
        for step, (xb, yb) in enumerate(batches(*train, steps, batch_size=batch_size)):
            optimizer.zero_grad()
            if mixup:
                lam, other = float(rng.beta(1, 1)), torch.randperm(len(xb))
                out = model(lam * xb + (1 - lam) * xb[other])
                loss = lam * loss_fn(out, yb) + (1 - lam) * loss_fn(out, yb[other])
            else:
                loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            val = None
            if step % every == every - 1:
                model.eval()
                with torch.no_grad():
                    val = validate(model)
                model.train()
            mon.step(loss, val_loss=val)
    return mon


# --- VALIDATION_LOSS_MISSCALED --------------------------------------------------------------

def test_planted_misscaled_validation_loss_is_named_and_its_twin_is_silent():
    assert SCALE in _codes(scale_case.run())
    assert SCALE not in _codes(scale_case.run(fixed=True))


def test_a_ninety_ten_split_divided_by_the_whole_dataset_is_named(monkeypatch):
    monkeypatch.setattr(scale_case, "VALID_SHARE", 0.1)
    assert SCALE in _codes(scale_case.run())
    assert SCALE not in _codes(scale_case.run(fixed=True))


def test_a_validation_loss_summed_over_its_rows_is_named():
    x, y = _digits()
    mon = _fit((x[:-360], y[:-360]),
               lambda m: F.cross_entropy(m(x[-360:]), y[-360:], reduction="sum"))
    found = [f for f in mon.findings() if f.code == SCALE]
    assert found and found[0].evidence["side"] == "above"


@pytest.mark.parametrize("setting", [
    dict(mixup=True),                                       # validated every 22 steps
    dict(mixup=True, steps=600, every=100),                 # a late first look
    dict(loss_fn=lambda out, y: F.cross_entropy(out, y, label_smoothing=0.2), steps=600,
         every=100),
    dict(dropout=0.8, hidden=128),
])
def test_regularised_training_losses_above_a_clean_validation_are_not_misscaled(setting):
    x, y = _digits()
    mon = _fit((x[:-360], y[:-360]), lambda m: F.cross_entropy(m(x[-360:]), y[-360:]),
               **setting)
    assert SCALE not in _codes(mon)


def test_misscaled_needs_the_first_validations_low_while_the_training_loss_falls():
    steps = np.arange(200)
    curve = 2.3 * np.exp(-steps / 40) + 0.05
    at = np.array([20, 40, 60, 80, 100])
    true_val = np.interp(at, steps, curve) * 1.1
    assert misscaled(steps, curve, at, 0.2 * true_val)[0] == "below"
    assert misscaled(steps, curve, at, true_val) is None
    # low only from the third validation on: a regularised run fitting past its floor
    assert misscaled(steps, curve, at, true_val * np.array([1, 0.6, 0.25, 0.25, 0.25])) is None
    # the first look after the training loss made nearly all of its fall
    late = np.array([180, 185, 190])
    assert misscaled(steps, curve, late, 0.2 * np.interp(late, steps, curve)) is None


# --- VALIDATION_CLASSES_UNSEEN --------------------------------------------------------------

def test_planted_class_sorted_split_is_named_and_its_twin_is_silent():
    assert UNSEEN in _codes(sorted_case.run())
    assert UNSEEN not in _codes(sorted_case.run(fixed=True))


def test_training_on_the_last_classes_of_a_sorted_list_is_named():
    x, y = classification()
    order = torch.argsort(y, stable=True)
    x, y = x[order], y[order]
    half = len(x) // 2                    # train on the second half: classes 5-9 (and some 4)
    mon = _fit((x[half:], y[half:]), lambda m: F.cross_entropy(m(x[:half]), y[:half]))
    found = [f for f in mon.findings() if f.code == UNSEEN]
    assert found and {0, 1, 2, 3} <= set(found[0].evidence["unseen_classes"])


def test_misnumbered_validation_labels_with_every_class_trained_are_not_unseen_classes():
    x, y = _digits()
    shifted = (y[-360:] + 3) % 10          # classes numbered differently in validation
    mon = _fit((x[:-360], y[:-360]), lambda m: F.cross_entropy(m(x[-360:]), shifted))
    codes = _codes(mon)
    assert NEVER in codes and UNSEEN not in codes


def test_spare_columns_on_a_run_that_generalises_are_not_unseen_classes():
    x, y = _digits()
    mon = _fit((x[:-360], y[:-360]), lambda m: F.cross_entropy(m(x[-360:]), y[-360:]),
               outputs=14)
    assert UNSEEN not in _codes(mon)


# --- VALIDATION_ROWS_IN_TRAINING (the training set as the validation set) -------------------

def test_planted_training_set_as_validation_is_named_and_its_twin_is_silent():
    found = [f for f in whole_set_case.run().findings() if f.code == ROWS]
    assert found and found[0].evidence.get("whole_set")
    assert ROWS not in _codes(whole_set_case.run(fixed=True))


def test_the_training_set_reread_by_a_shuffling_loader_is_named():
    x, y = _digits()
    train = (x[:400], y[:400])
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(*train), batch_size=64,
                                         shuffle=True)

    def validate(model):
        return sum(float(F.cross_entropy(model(xb), yb, reduction="sum"))
                   for xb, yb in loader) / len(train[0])
    assert ROWS in _codes(_fit(train, validate, batch_size=32, every=25))


def test_a_training_accuracy_pass_beside_a_held_out_validation_is_silent():
    x, y = _digits()
    train = (x[:300], y[:300])

    def validate(model):
        model(train[0]).argmax(1)          # training accuracy, in eval mode, first
        return F.cross_entropy(model(x[-600:]), y[-600:])
    assert ROWS not in _codes(_fit(train, validate, batch_size=32, every=25))


def test_a_training_accuracy_pass_over_a_large_training_set_is_silent():
    x, y = _digits()
    train = (x[:1400], y[:1400])

    def validate(model):
        model(train[0]).argmax(1)          # 1400 training rows: more than the kept evaluation
        return F.cross_entropy(model(x[-360:]), y[-360:])
    assert ROWS not in _codes(_fit(train, validate))


def test_whole_set_needs_every_batch_a_training_pass_and_rows_seen_again():
    rows = [(i, 100, 100, 300, 2048, 64) for i in range(5)]
    assert validation_is_training_set(rows, validations=3) == (500, 300)
    assert validation_is_training_set(rows, validations=0) is None
    assert validation_is_training_set(rows + [(5, 100, 3, 300, 2048, 64)], 3) is None
    assert validation_is_training_set(rows[:2], 3) is None        # 200 rows < 300 distinct


# --- the two cases named by codes that existed -----------------------------------------------

def test_dropout_list_and_shuffled_validation_predictions_are_named():
    assert "UNREGISTERED_PARAMETERS" in _codes(dropout_case.run())
    assert "UNREGISTERED_PARAMETERS" not in _codes(dropout_case.run(fixed=True))
    assert NEVER in _codes(shuffled_case.run())
    assert NEVER not in _codes(shuffled_case.run(fixed=True))

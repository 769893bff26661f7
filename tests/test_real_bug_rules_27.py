"""Real-bug batch 27 (tabular set-ups): VALIDATION_COLUMNS_REORDERED and
VALIDATION_SCALED_ON_ITSELF (``rules/validation_features.py``, read from
``monitor/feature_moments.py``), RARE_POSITIVES_NEVER_PREDICTED (``rules/rare_positives.py``,
read from the recorded loss calls).

Each is named on its planted cases (scikit-learn#7242, mlcourse.ai#690, EpiNano#119;
scikit-learn#5800; the PyTorch forum's "Predictions stuck at zero"), silent on their fixed
twins, and silent on healthy set-ups that look alike: a held-out set from a skewed source
put through the training scaler (its columns really move), a data set standardised as a
whole before the split, image inputs (no table), a balanced binary task, rare positives
that the features do separate.
"""
import pytest

torch = pytest.importorskip("torch")
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import feature_columns_sorted_by_name_for_scoring as sorted_names  # noqa: E402,E501
from benchmarks.real_bugs import one_hot_test_column_appended_last as one_hot  # noqa: E402
from benchmarks.real_bugs import predict_columns_reordered_by_set as set_columns  # noqa: E402
from benchmarks.real_bugs import rare_positives_without_pos_weight as rare  # noqa: E402
from benchmarks.real_bugs import test_split_scaled_with_its_own_statistics as own_scaled  # noqa: E402,E501
from benchmarks.real_bugs._common import batches, binary, classification, mlp  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
REORDERED, OWN, RARE = ("VALIDATION_COLUMNS_REORDERED", "VALIDATION_SCALED_ON_ITSELF",
                        "RARE_POSITIVES_NEVER_PREDICTED")
MINE = {REORDERED, OWN, RARE}


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def _validated(x_train, y_train, x_val, y_val, steps=90, images=False):
    """Adam on an MLP (or a small conv net for images), the validation loss every 22 steps."""
    torch.manual_seed(0)
    if images:
        model = torch.nn.Sequential(torch.nn.Conv2d(1, 8, 3), torch.nn.ReLU(),
                                    torch.nn.Flatten(), torch.nn.Linear(8 * 36, 10))
    else:
        model = mlp(inputs=x_train.shape[1])
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer) as mon:
        for done, (xb, yb) in enumerate(batches(x_train, y_train, steps), start=1):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            val_loss = None
            if done % 22 == 0:
                with torch.no_grad():
                    val_loss = F.cross_entropy(model(x_val), y_val)
            mon.step(loss, val_loss=val_loss)
    return mon


def _split(x, y, held_out=360):
    order = torch.randperm(len(x), generator=torch.Generator().manual_seed(1))
    return x[order[held_out:]], y[order[held_out:]], x[order[:held_out]], y[order[:held_out]]


@pytest.mark.parametrize("case", [sorted_names, one_hot, set_columns],
                         ids=lambda case: case.__name__.rsplit(".", 1)[-1])
def test_reordered_columns_are_named_and_their_fixed_twins_are_silent(case):
    assert REORDERED in _codes(case.run())
    assert not _codes(case.run(fixed=True)) & MINE


def test_a_held_out_set_scaled_on_itself_is_named_and_its_fixed_twin_is_silent():
    assert OWN in _codes(own_scaled.run())
    fixed = _codes(own_scaled.run(fixed=True))   # skewed source, training scaler: it moves
    assert not fixed & MINE


def test_columns_reversed_by_hand_are_named():
    x, y = classification()
    x_train, y_train, x_val, y_val = _split(x, y)
    assert REORDERED in _codes(_validated(x_train, y_train, x_val.flip(1), y_val))


def test_a_set_standardised_as_a_whole_before_the_split_is_silent():
    x, y = classification()
    x = x * 16
    x = (x - x.mean(0)) / x.std(0).clamp_min(1e-6)     # every row, held-out ones included
    assert not _codes(_validated(*_split(x, y))) & MINE


def test_a_held_out_set_of_another_class_mix_is_not_a_reordering():
    x, y = classification()
    x_train, y_train, x_val, y_val = _split(x, y)
    skewed = y_val < 4                                  # real movement, no permutation
    assert not _codes(_validated(x_train, y_train, x_val[skewed], y_val[skewed])) & MINE


def test_image_inputs_record_no_column_moments():
    x, y = classification(images=True)
    mon = _validated(*_split(x, y), images=True)
    assert mon.run.observed.feature_moments == []
    assert not _codes(mon) & MINE


def test_rare_positives_never_predicted_is_named_and_its_fixed_twin_is_silent():
    assert RARE in _codes(rare.run())
    assert not _codes(rare.run(fixed=True)) & MINE


def _binary_run(x, y, steps=150):
    torch.manual_seed(0)
    model = mlp(outputs=1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = F.binary_cross_entropy_with_logits(model(xb).squeeze(1), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_a_balanced_binary_task_is_silent():
    assert not _codes(_binary_run(*binary())) & MINE


def test_rare_positives_the_features_separate_are_silent():
    x, digit = classification()
    y = (digit == 0).float()                            # one row in ten, clean pixels
    # trained until the model finds them: since functional BCE calls are read (real-bug
    # batch 67) the rule sees this loop, and at 150 steps of SGD at 0.05 this model had not
    # yet put one output above 0 (largest -0.89 at step 128: the finding was true there); by
    # step 256 it has (0.53), and a model that finds its positives must stay unnamed
    assert not _codes(_binary_run(x, y, steps=300)) & MINE

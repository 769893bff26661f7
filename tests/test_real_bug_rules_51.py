"""Real-bug batch 51 (classifiers that predict one class or stay at chance):
RARE_CLASS_NEVER_PREDICTED (``rules/rare_classes.py``, read from the class ids each late loss
call's scores picked, ``LossCall.predicted_classes``) and CLASSIFIER_TRAINED_WITH_SQUARED_ERROR
(``rules/squared_error_labels.py``, read from the loss calls' one-hot target rows and the
squashed outputs).

Each is named on its planted cases (open-mmlab/mmsegmentation#2579; FluxML/model-zoo#8 and
the Stack Overflow "outputs the mean value for every input"), silent on their fixed twins,
and silent on set-ups that look alike and are fine: a rare class the model does learn, a
balanced classifier, a network broken into predicting one class of ten (its cause is not
the classes' rarity), squared error on one-hot labels with raw outputs, on a teacher's soft
targets, on binary images (several 1s in a row) and on two columns.
"""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import cnn_sgd_rate_locks_into_one_class as dead_cnn  # noqa: E402
from benchmarks.real_bugs import empty_masks_dominate_binary_segmentation as empty_masks  # noqa: E402,E501
from benchmarks.real_bugs import sigmoid_outputs_mse_predict_class_mean as sigmoid_mse  # noqa: E402,E501
from benchmarks.real_bugs import softmax_outputs_trained_with_mse as softmax_mse  # noqa: E402
from benchmarks.real_bugs._common import batches, classification, mlp  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
RARE, SQUARED = "RARE_CLASS_NEVER_PREDICTED", "CLASSIFIER_TRAINED_WITH_SQUARED_ERROR"


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


# --- RARE_CLASS_NEVER_PREDICTED ---------------------------------------------------------

def test_empty_masks_name_the_rare_class():
    mon = empty_masks.run()
    assert RARE in _codes(mon)
    finding = next(f for f in mon.findings() if f.code == RARE)
    assert finding.evidence["never_predicted"] == [1]
    assert finding.evidence["target_share"] < 0.05


def test_defect_images_only_is_silent():
    assert RARE not in _codes(empty_masks.run(fixed=True))


def _segment(defect_share, brightness, steps=600, weight=None):
    """The planted segmenter's loop with another defect share, spot brightness or weights."""
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    model = empty_masks.segmenter()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss(weight=weight)
    with nd.watch(model, optimizer) as mon:
        for _ in range(steps):
            images, masks = empty_masks.inspection_images(16, rng, defect_share)
            images = images + (brightness - 0.8) * masks[:, None]
            optimizer.zero_grad()
            loss = loss_fn(model(images), masks)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_a_rare_class_the_model_learns_is_silent():
    """The same rarity with a spot bright enough to be found: the model picks it."""
    assert RARE not in _codes(_segment(empty_masks.DEFECT_SHARE, brightness=3.0))


def test_class_weights_are_left_to_the_user():
    mon = _segment(empty_masks.DEFECT_SHARE, brightness=0.8, weight=torch.tensor([1.0, 30.0]))
    assert RARE not in _codes(mon)


def test_a_broken_network_predicting_one_class_of_ten_is_not_rarity():
    assert RARE not in _codes(dead_cnn.run())


def test_a_balanced_digit_classifier_is_silent():
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = _train(model, optimizer, x, y, F.cross_entropy, steps=120)
    assert RARE not in _codes(mon)


# --- CLASSIFIER_TRAINED_WITH_SQUARED_ERROR ----------------------------------------------

def test_softmax_outputs_scored_by_squared_error_are_named():
    mon = softmax_mse.run()
    assert SQUARED in _codes(mon)
    finding = next(f for f in mon.findings() if f.code == SQUARED)
    assert finding.evidence["columns"] == 10 and "softmax" in finding.evidence["squashed_by"]


def test_sigmoid_outputs_one_image_per_loss_call_are_named():
    mon = sigmoid_mse.run()
    assert SQUARED in _codes(mon)
    assert "sigmoid" in next(f for f in mon.findings() if f.code == SQUARED).evidence["squashed_by"]


@pytest.mark.parametrize("case", [softmax_mse, sigmoid_mse])
def test_cross_entropy_twins_are_silent(case):
    assert SQUARED not in _codes(case.run(fixed=True))


def _train(model, optimizer, x, y, loss_fn, steps=80):
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def _one_hot_mse(outputs, labels):
    return F.mse_loss(outputs, F.one_hot(labels, outputs.shape[1]).float())


def test_squared_error_on_raw_outputs_is_silent():
    """One-hot labels regressed by linear outputs: a studied choice that trains."""
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    mon = _train(model, torch.optim.Adam(model.parameters(), lr=1e-3), x, y, _one_hot_mse)
    assert SQUARED not in _codes(mon)


def test_squared_error_on_soft_targets_is_silent():
    """A student's softmax matched to a teacher's probabilities (distillation)."""
    torch.manual_seed(0)
    x, y = classification()
    teacher = mlp()
    soft = torch.softmax(teacher(x) / 2.0, dim=1).detach()
    student = nn.Sequential(mlp(), nn.Softmax(dim=1))
    mon = _train(student, torch.optim.Adam(student.parameters(), lr=1e-3), x, soft, F.mse_loss)
    assert SQUARED not in _codes(mon)


def test_sigmoid_autoencoder_on_binary_images_is_silent():
    """Binary pixels (many 1s per row) reconstructed through a sigmoid."""
    torch.manual_seed(0)
    x, _ = classification()
    pixels = (x > 0.5).float()
    model = nn.Sequential(nn.Linear(64, 16), nn.ReLU(), nn.Linear(16, 64), nn.Sigmoid())
    mon = _train(model, torch.optim.Adam(model.parameters(), lr=1e-3), pixels, pixels,
                 F.mse_loss)
    assert SQUARED not in _codes(mon)


def test_two_columns_are_left_alone():
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(mlp(outputs=2), nn.Sigmoid())
    mon = _train(model, torch.optim.Adam(model.parameters(), lr=1e-3), x, (y >= 5).long(),
                 _one_hot_mse)
    assert SQUARED not in _codes(mon)

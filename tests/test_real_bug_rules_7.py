"""Rules added for the seventh batch of reproduced public bug reports
(``benchmarks/real_bugs/``, rules/target_kinds.py): each with the bug planted and its
healthy twin."""
import pytest

torch = pytest.importorskip("torch")

from synthetic import blobs  # noqa: E402

import nndebug as nd  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
BATCH = 32


def _train(layers, loss_fn, batches, lr=1e-2):
    """The ordinary loop under watch; the findings by code."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(*layers)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches:
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return {f.code: f for f in mon.findings()}


def _problems(found):
    return sorted(code for code, f in found.items() if f.severity in PROBLEMS)


def _classifier(outputs=4):
    return [torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, outputs)]


# --- TARGETS_OUTSIDE_OUTPUT_RANGE ------------------------------------------------------------
def _regression(scale, last, steps=60):
    """Targets in [0, 1] (or [-1, 1] for tanh) times ``scale``, the model ending in ``last``."""
    generator = torch.Generator().manual_seed(0)
    weights = torch.randn(16, 1, generator=generator)

    def batches():
        for _ in range(steps):
            x = torch.randn(BATCH, 16, generator=generator)
            y = torch.sigmoid(x @ weights) if isinstance(last, torch.nn.Sigmoid) \
                else torch.tanh(x @ weights)
            yield x, y * scale
    layers = [torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1), last]
    return _train(layers, torch.nn.MSELoss(), batches())


@pytest.mark.parametrize("last", [torch.nn.Sigmoid(), torch.nn.Tanh()], ids=["sigmoid", "tanh"])
def test_targets_beyond_a_squashing_output_are_named(last):
    found = _regression(scale=255, last=last)
    assert "TARGETS_OUTSIDE_OUTPUT_RANGE" in found, sorted(found)
    finding = found["TARGETS_OUTSIDE_OUTPUT_RANGE"]
    assert finding.severity == "warning"
    assert finding.where == "3" and finding.evidence["target_max"] > 100


@pytest.mark.parametrize("last", [torch.nn.Sigmoid(), torch.nn.Tanh()], ids=["sigmoid", "tanh"])
def test_targets_inside_the_output_range_stay_silent(last):
    found = _regression(scale=1, last=last)
    assert "TARGETS_OUTSIDE_OUTPUT_RANGE" not in found
    assert not _problems(found), _problems(found)


def _relu_regression(shift, steps=60):
    """Standardised-like targets x @ w + shift behind a final ReLU."""
    generator = torch.Generator().manual_seed(0)
    weights = torch.randn(16, 1, generator=generator) / 4

    def batches():
        for _ in range(steps):
            x = torch.randn(BATCH, 16, generator=generator)
            yield x, x @ weights + shift
    layers = [torch.nn.Linear(16, 32), torch.nn.Tanh(), torch.nn.Linear(32, 1),
              torch.nn.ReLU()]
    return _train(layers, torch.nn.MSELoss(), batches())


def test_negative_targets_behind_a_final_relu_are_named():
    """Targets of both signs (mean 0): a ReLU's output can never be negative, so half of
    them cannot be reached (the ProteomicsML report, alive or dead output alike)."""
    found = _relu_regression(shift=0.0)
    assert "TARGETS_OUTSIDE_OUTPUT_RANGE" in found, sorted(found)
    finding = found["TARGETS_OUTSIDE_OUTPUT_RANGE"]
    assert finding.severity == "warning" and finding.evidence["output_range"][0] == 0.0
    assert "Drop the final relu" in finding.fix


def test_non_negative_targets_behind_a_final_relu_stay_silent():
    """Counts, prices, distances: a final ReLU is a fine way to keep them non-negative."""
    found = _relu_regression(shift=3.0)
    assert "TARGETS_OUTSIDE_OUTPUT_RANGE" not in found
    assert not _problems(found), _problems(found)


# --- TARGETS_ALL_ONE_CLASS -------------------------------------------------------------------
def test_every_target_the_same_class_is_named():
    batches = ((x, torch.zeros_like(y)) for x, y in blobs(40))
    found = _train(_classifier(), torch.nn.CrossEntropyLoss(), batches)
    assert "TARGETS_ALL_ONE_CLASS" in found, sorted(found)
    assert found["TARGETS_ALL_ONE_CLASS"].evidence["target"] == 0


def test_constant_binary_targets_stay_silent():
    """All-ones targets into a binary loss: a GAN discriminator's real batch looks so."""
    batches = ((x, torch.ones(len(y), 1)) for x, y in blobs(40))
    found = _train(_classifier(1), torch.nn.BCEWithLogitsLoss(), batches)
    assert "TARGETS_ALL_ONE_CLASS" not in found


def test_targets_of_several_classes_stay_silent():
    found = _train(_classifier(), torch.nn.CrossEntropyLoss(), blobs(40))
    assert "TARGETS_ALL_ONE_CLASS" not in found
    assert not _problems(found), _problems(found)


# --- MULTI_LABEL_WITH_CROSS_ENTROPY and SINGLE_LABEL_WITH_BCE --------------------------------
def _multi_hot(y):
    """Two labels per sample: the class and the next one."""
    return (torch.nn.functional.one_hot(y, 4) + torch.nn.functional.one_hot((y + 1) % 4, 4)
            ).float()


def test_cross_entropy_on_multi_hot_targets_is_named():
    batches = ((x, _multi_hot(y)) for x, y in blobs(40))
    found = _train(_classifier(), torch.nn.CrossEntropyLoss(), batches)
    assert "MULTI_LABEL_WITH_CROSS_ENTROPY" in found, sorted(found)
    finding = found["MULTI_LABEL_WITH_CROSS_ENTROPY"]
    assert finding.evidence["share_multi_label"] == 1.0
    assert finding.evidence["max_labels_per_row"] == 2


def test_multi_hot_targets_with_bce_stay_silent():
    batches = ((x, _multi_hot(y)) for x, y in blobs(40))
    found = _train(_classifier(), torch.nn.BCEWithLogitsLoss(), batches)
    assert not {"MULTI_LABEL_WITH_CROSS_ENTROPY", "SINGLE_LABEL_WITH_BCE"} & set(found)
    assert not _problems(found), _problems(found)


def test_cross_entropy_on_one_hot_targets_stays_silent():
    """One-hot float targets are class probabilities: the same loss as the class ids."""
    batches = ((x, torch.nn.functional.one_hot(y, 4).float()) for x, y in blobs(40))
    found = _train(_classifier(), torch.nn.CrossEntropyLoss(), batches)
    assert "MULTI_LABEL_WITH_CROSS_ENTROPY" not in found
    assert not _problems(found), _problems(found)


def test_bce_on_one_hot_targets_is_named():
    batches = ((x, torch.nn.functional.one_hot(y, 4).float()) for x, y in blobs(40))
    found = _train(_classifier(), torch.nn.BCEWithLogitsLoss(), batches)
    assert "SINGLE_LABEL_WITH_BCE" in found, sorted(found)
    assert found["SINGLE_LABEL_WITH_BCE"].evidence["columns"] == 4


def test_bce_on_two_one_hot_columns_stays_silent():
    """Two complementary columns are a legitimate binary set-up (MIN_LABEL_COLUMNS)."""
    batches = ((x, torch.nn.functional.one_hot(y % 2, 2).float()) for x, y in blobs(40))
    found = _train(_classifier(2), torch.nn.BCEWithLogitsLoss(), batches)
    assert "SINGLE_LABEL_WITH_BCE" not in found


def test_label_rows_counts_labels_and_says_nothing_of_probabilities():
    """The host summary of a target's first rows: counts for exact 0/1 labels, label_rows 0
    for probabilities (a verdict: not labels), nothing when no rows were read."""
    import numpy as np
    from nndebug.monitor.loss_capture import label_rows
    target = np.zeros((3, 4))
    labels = np.array([[1, 0, 0, 0], [0, 1, 1, 0], [1, 1, 1, 0]], dtype=np.float32)
    assert label_rows(labels.reshape(-1), target) == {
        "label_rows": 3, "one_hot_rows": 1, "multi_hot_rows": 2, "max_labels_in_row": 3}
    assert label_rows(np.full(12, 0.25), target) == {"label_rows": 0}
    assert label_rows(None, target) == {}

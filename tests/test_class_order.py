"""BATCHES_OF_ONE_CLASS: training data read in class order. The check alone on hand-made
loss calls (sorted, shuffled, imbalanced, tiny batches), then a planted run and its
shuffled twin on both frameworks."""
import numpy as np
import pytest

import nndebug as nd
from nndebug.observed import LossCall, Observed
from nndebug.records import RunRecord
from nndebug.rules import diagnose
from nndebug.rules.class_order import ONE_CLASS_SHARE, one_class_batches

torch = pytest.importorskip("torch")

import minigrad as mg  # noqa: E402
import minigrad.nn as mnn  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def calls(modes, shares, batch=32, loss="CrossEntropyLoss"):
    return [LossCall(step, loss, (batch, 10), (batch,), target_mode=float(mode),
                     target_mode_share=share)
            for step, (mode, share) in enumerate(zip(modes, shares))]


def codes_of(loss_calls):
    return {f.code: f for f in diagnose(RunRecord(observed=Observed(loss_calls=loss_calls)))}


def test_sorted_batches_are_named_and_other_batches_are_not():
    finding = codes_of(calls([0, 0, 1, 2, 5], [1.0, 1.0, 0.6, 1.0, 1.0]))["BATCHES_OF_ONE_CLASS"]
    assert finding.severity == "warning" and finding.evidence["dominant_classes"] == [0, 2, 5]
    assert "BATCHES_OF_ONE_CLASS" not in codes_of(calls([3, 1, 7, 2], [0.2, 0.25, 0.2, 0.3]))
    # one class everywhere: imbalance, not order
    assert "BATCHES_OF_ONE_CLASS" not in codes_of(calls([0] * 5, [0.95] * 5))
    # batches of one sample are always one class
    assert "BATCHES_OF_ONE_CLASS" not in codes_of(calls([0, 1, 2, 3], [1.0] * 4, batch=1))
    # per-token targets (language models) are the padding rule's business
    tokens = [LossCall(s, "cross_entropy", (8, 32, 50), (8, 32), target_mode=float(s),
                       target_mode_share=1.0) for s in range(4)]
    assert one_class_batches(tokens) == ([], [])
    assert ONE_CLASS_SHARE > 0.5


def blobs(n=600, seed=0):
    """Three well separated classes, stored class by class."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(3), n // 3)
    x = rng.normal(size=(n, 8)).astype(np.float32) + 2.0 * np.eye(3, 8, dtype=np.float32)[y]
    return x, y.astype(np.int64)


def order(n, shuffled, steps, batch=32, seed=0):
    rng = np.random.default_rng(seed)
    starts = []
    while len(starts) < steps:
        index = rng.permutation(n) if shuffled else np.arange(n)
        starts += [index[s:s + batch] for s in range(0, n - batch + 1, batch)]
    return starts[:steps]


def train_in_order(targets, outputs, loss_fn, shuffled, steps=60):
    """The blobs' MLP trained on ``targets`` (one per row of the class-sorted blobs) through
    ``loss_fn``, its batches read in stored order or shuffled; the warnings and errors."""
    x, _ = blobs()
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(),
                                torch.nn.Linear(32, outputs))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    with nd.watch(model, optimizer) as mon:
        for index in order(len(x), shuffled, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(torch.from_numpy(x[index])), torch.from_numpy(targets[index]))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


@pytest.mark.parametrize("shuffled", [False, True])
def test_torch_class_ordered_loader_and_its_shuffled_twin(shuffled):
    _, y = blobs()
    found = train_in_order(y, 3, torch.nn.CrossEntropyLoss(), shuffled)
    assert ("BATCHES_OF_ONE_CLASS" in found) == (not shuffled), found
    if shuffled:
        assert not found


@pytest.mark.parametrize("shuffled", [False, True])
def test_minigrad_class_ordered_loader_and_its_shuffled_twin(shuffled):
    x, y = blobs()
    mg.manual_seed(0)
    model = mnn.Sequential(mnn.Linear(8, 32), mnn.ReLU(), mnn.Linear(32, 3))
    optimizer = mg.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = mnn.CrossEntropyLoss()
    with nd.watch(model, optimizer) as mon:
        for index in order(len(x), shuffled, 60):
            optimizer.zero_grad()
            loss = loss_fn(model(mg.tensor(x[index])), mg.tensor(y[index]))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    found = {f.code for f in mon.findings() if f.severity in ("warning", "error")}
    assert ("BATCHES_OF_ONE_CLASS" in found) == (not shuffled), found
    if shuffled:
        assert not found


@pytest.mark.parametrize("shuffled", [False, True])
def test_torch_binary_labels_sorted_and_read_in_order(shuffled):
    """(real-bug batch 137) A binary classifier on (N, 1) 0/1 targets through
    BCEWithLogitsLoss, its dataset sorted by label and read without shuffling: its batches
    are all 0s, then all 1s. The shuffled twin's batches hold both, and a dataset of mostly
    0s (an imbalance, not an order) gives batches of one class that is the same one."""
    _, y = blobs()
    label = (y >= 1).astype(np.float32)[:, None]          # 200 zeros, then 400 ones
    found = train_in_order(label, 1, torch.nn.BCEWithLogitsLoss(), shuffled)
    assert ("BATCHES_OF_ONE_CLASS" in found) == (not shuffled), found


def test_binary_batches_of_the_same_class_are_imbalance_not_order():
    rare = [LossCall(step, "BCEWithLogitsLoss", (32, 1), (32, 1), label_rows=32,
                     one_hot_rows=1, multi_hot_rows=0, max_labels_in_row=1,
                     label_shares=(1 / 32,)) for step in range(5)]
    assert "BATCHES_OF_ONE_CLASS" not in codes_of(rare)
    flagged, judged = one_class_batches(rare)
    assert len(flagged) == len(judged) == 5

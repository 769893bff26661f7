"""MULTI_LABEL_WITH_CROSS_ENTROPY's second reading: a binary cross-entropy whose inputs are
softmax rows while its targets are multi-hot (real-bug batch 258, keras-team/keras#741: a
softmax output layer trained with BCELoss on tags that occur together). Each label gets
its own yes/no loss, but the softmax still shares one unit of probability among them.

Healthy look-alikes stay silent: the same tags through one sigmoid per label, a two-way
softmax trained on one-hot rows (a binary task written as two columns), and soft targets."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
CODE = "MULTI_LABEL_WITH_CROSS_ENTROPY"
STEPS, FEATURES, LABELS = 40, 20, 6


def _tags(seed=0):
    """(x, y): random features and 6 tags, each on when its own projection is positive
    (about half the tags of a row on: several 1s in most rows)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(512, FEATURES)).astype(np.float32)
    w = rng.normal(size=(FEATURES, LABELS)).astype(np.float32)
    return x, (x @ w > 0).astype(np.float32)


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def _train(last, targets=None):
    torch.manual_seed(0)
    x, y = _tags()
    x, y = torch.from_numpy(x), torch.from_numpy(y if targets is None else targets(y))
    model = nn.Sequential(nn.Linear(FEATURES, 32), nn.ReLU(), nn.Linear(32, y.shape[1]), last)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss_fn = nn.BCELoss()
    rows = np.random.default_rng(1)
    with nd.watch(model, optimizer) as mon:
        for _ in range(STEPS):
            i = torch.from_numpy(rows.integers(0, len(x), 64))
            loss = loss_fn(model(x[i]), y[i])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_softmax_rows_into_bce_on_multi_hot_tags_are_named():
    mon = _train(nn.Softmax(dim=1))
    found = [f for f in mon.findings() if f.code == CODE]
    assert found and found[0].evidence["softmax_inputs"]
    assert found[0].evidence["max_labels_per_row"] >= 2


def test_one_sigmoid_per_tag_is_silent():
    assert CODE not in _codes(_train(nn.Sigmoid()))


def test_a_two_way_softmax_on_one_hot_rows_is_silent():
    def two_columns(y):
        first = y[:, :1]
        return np.concatenate([first, 1 - first], axis=1)
    assert CODE not in _codes(_train(nn.Softmax(dim=1), two_columns))


def test_soft_targets_are_not_read_as_tags():
    def smoothed(y):
        return (y + 0.5) / (y.sum(axis=1, keepdims=True) + 0.5 * y.shape[1])
    assert CODE not in _codes(_train(nn.Softmax(dim=1), smoothed))


def test_minigrad_softmax_into_bce_is_named():
    import minigrad as mg
    import minigrad.nn as mnn
    import minigrad.optim as moptim
    mg.manual_seed(0)
    x, y = _tags()
    model = mnn.Sequential(mnn.Linear(FEATURES, 32), mnn.ReLU(), mnn.Linear(32, LABELS),
                           mnn.Softmax(dim=1))
    optimizer = moptim.Adam(model.parameters(), lr=1e-2)
    loss_fn = mnn.BCELoss()
    rows = np.random.default_rng(1)
    with nd.watch(model, optimizer=optimizer) as mon:
        for _ in range(STEPS):
            i = rows.integers(0, len(x), 64)
            loss = loss_fn(model(mg.tensor(x[i])), mg.tensor(y[i]))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert CODE in _codes(mon)

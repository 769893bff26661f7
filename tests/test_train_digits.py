"""End to end: train on the shipped 8x8 digits in minigrad and in torch, side by side.

Both frameworks start from identical float64 weights (``to_torch`` of the minigrad
model), see the same batches in the same order and use the same optimizer, so
their loss curves must agree to 1e-6 relative at every step: any difference in a
layer, a loss, a backward rule or an optimizer update would make them drift.
The minigrad MLP must also actually learn: at least 95% test accuracy.
"""
import time

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
from minigrad import optim
from minigrad.data import batches, load_digits, train_test_split
from minigrad.interop import to_torch

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module", autouse=True)
def one_blas_thread():
    """Small matrices are fastest on one thread; several threads per process fight over the
    cores when tests run in parallel (10x slower steps observed on 2 cores)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:   # pragma: no cover - optional
        yield
    else:
        with threadpool_limits(limits=1):
            yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def digits():
    """Train/test split with each pixel standardised by the training set's statistics."""
    x, y = load_digits(dtype=np.float64)     # both models train in float64
    x_train, x_test, y_train, y_test = train_test_split(x, y, test_size=0.25, seed=0)
    mean, scale = x_train.mean(axis=0), x_train.std(axis=0) + 0.1
    return (x_train - mean) / scale, (x_test - mean) / scale, y_train, y_test


def train_side_by_side(mine, opt_mine, theirs, opt_theirs, x, y, epochs, batch_size=64,
                       max_steps=None, shape=None, schedulers=None):
    """Train both models on the same batches; return both loss curves and minigrad's time."""
    loss_mine, loss_theirs = nn.CrossEntropyLoss(), torch.nn.CrossEntropyLoss()
    curve_mine, curve_theirs, seconds = [], [], 0.0
    for epoch in range(epochs):
        for xb, yb in batches(x, y, batch_size=batch_size, shuffle=True, seed=epoch):
            if shape is not None:
                xb = xb.reshape((len(xb),) + shape)
            start = time.perf_counter()
            opt_mine.zero_grad()
            loss = loss_mine(mine(mg.tensor(xb, dtype=np.float64)), yb)
            loss.backward()
            opt_mine.step()
            seconds += time.perf_counter() - start
            curve_mine.append(loss.item())

            opt_theirs.zero_grad()
            loss_t = loss_theirs(theirs(torch.from_numpy(xb)), torch.from_numpy(yb))
            loss_t.backward()
            opt_theirs.step()
            curve_theirs.append(loss_t.item())
            if max_steps is not None and len(curve_mine) >= max_steps:
                return np.array(curve_mine), np.array(curve_theirs), seconds
        for scheduler in schedulers or ():
            scheduler.step()
    return np.array(curve_mine), np.array(curve_theirs), seconds


def accuracy(model, x, y, shape=None):
    model.eval()
    with mg.no_grad():
        inputs = x if shape is None else x.reshape((len(x),) + shape)
        logits = model(mg.tensor(inputs, dtype=np.float64))
    model.train()
    return float((logits.data.argmax(axis=1) == y).mean())


def test_mlp_matches_torch_loss_curve_and_reaches_95_percent(digits):
    x_train, x_test, y_train, y_test = digits
    mg.manual_seed(0)
    mine = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(),
                         nn.Linear(64, 10)).double()
    theirs = to_torch(mine)
    opt_mine = optim.SGD(mine.parameters(), lr=0.05, momentum=0.9)
    opt_theirs = torch.optim.SGD(theirs.parameters(), lr=0.05, momentum=0.9)
    schedulers = (optim.lr_scheduler.StepLR(opt_mine, step_size=3, gamma=0.5),
                  torch.optim.lr_scheduler.StepLR(opt_theirs, step_size=3, gamma=0.5))
    curve_mine, curve_theirs, seconds = train_side_by_side(
        mine, opt_mine, theirs, opt_theirs, x_train, y_train, epochs=8, schedulers=schedulers)
    np.testing.assert_allclose(curve_mine, curve_theirs, rtol=1e-6)
    assert curve_mine[-5:].mean() < 0.3 * curve_mine[:5].mean()
    acc = accuracy(mine, x_test, y_test)
    print(f"\nMLP: {len(curve_mine)} steps in {seconds:.2f} s (minigrad), test accuracy {acc:.3f}")
    assert acc >= 0.95, f"test accuracy {acc:.3f} below 0.95"
    assert seconds < 20


def test_cnn_matches_torch_loss_curve(digits):
    x_train, _, y_train, _ = digits
    mg.manual_seed(1)
    mine = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(16 * 4 * 4, 10)).double()
    theirs = to_torch(mine)
    opt_mine = optim.Adam(mine.parameters(), lr=3e-3)
    opt_theirs = torch.optim.Adam(theirs.parameters(), lr=3e-3)
    curve_mine, curve_theirs, seconds = train_side_by_side(
        mine, opt_mine, theirs, opt_theirs, x_train, y_train, epochs=2, max_steps=30,
        shape=(1, 8, 8))
    np.testing.assert_allclose(curve_mine, curve_theirs, rtol=1e-6)
    assert curve_mine[-5:].mean() < 0.5 * curve_mine[:5].mean()
    print(f"\nCNN: {len(curve_mine)} steps in {seconds:.2f} s (minigrad)")
    assert seconds < 20


def test_batch_norm_dropout_mlp_matches_torch_in_eval_and_learns(digits):
    """Batch norm in training mode (batch statistics, running updates) along a whole curve."""
    x_train, x_test, y_train, y_test = digits
    mg.manual_seed(2)
    mine = nn.Sequential(nn.Linear(64, 64), nn.BatchNorm1d(64), nn.ReLU(),
                         nn.Linear(64, 10)).double()
    theirs = to_torch(mine)
    opt_mine = optim.AdamW(mine.parameters(), lr=1e-2)
    opt_theirs = torch.optim.AdamW(theirs.parameters(), lr=1e-2)
    curve_mine, curve_theirs, _ = train_side_by_side(
        mine, opt_mine, theirs, opt_theirs, x_train, y_train, epochs=2)
    np.testing.assert_allclose(curve_mine, curve_theirs, rtol=1e-6)
    for key, value in theirs.state_dict().items():
        np.testing.assert_allclose(mine.state_dict()[key], value.numpy(), rtol=1e-6, atol=1e-9,
                                   err_msg=key)
    assert accuracy(mine, x_test, y_test) >= 0.9


def test_data_helpers():
    x, y = load_digits()
    assert x.shape == (1797, 64) and y.shape == (1797,) and y.dtype == np.int64
    assert x.dtype == np.float32                 # what a new layer takes
    assert x.min() == 0.0 and x.max() == 1.0
    images, _ = load_digits(as_images=True, scale=False)
    assert images.shape == (1797, 1, 8, 8) and images.max() == 16.0
    x_tr, x_te, y_tr, y_te = train_test_split(x, y, test_size=0.25, seed=0)
    assert len(x_tr) + len(x_te) == 1797 and abs(len(x_te) - 450) <= 10
    assert np.allclose(np.bincount(y_te) / len(y_te), np.bincount(y) / len(y), atol=0.01)
    again = train_test_split(x, y, test_size=0.25, seed=0)
    np.testing.assert_array_equal(again[1], x_te)
    state = mg.get_rng_state()
    seen = np.concatenate([yb for _, yb in batches(x_tr, y_tr, batch_size=100, seed=3)])
    assert mg.get_rng_state() == state        # a seeded shuffle touches no global generator
    assert sorted(seen.tolist()) == sorted(y_tr.tolist())
    sizes = [len(xb) for xb, _ in batches(x_tr, y_tr, batch_size=100, shuffle=False,
                                           drop_last=True)]
    assert sizes == [100] * (len(x_tr) // 100)
    with pytest.raises(ValueError, match="same length"):
        next(batches(x_tr, y_te))

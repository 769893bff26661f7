"""BATCHES_FROM_FEW_SAMPLES: every batch drawn from the same handful of samples.

Planted: a WeightedRandomSampler given one weight per class (it draws indices 0..C-1
only), and the same mistake by hand in minigrad. Healthy twins: per-sample weights, a
shuffled loader, full-batch training (one batch again and again, no row repeated in it).
"""
import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as mnn
import minigrad.optim as moptim
import nndebug as nd
from nndebug.monitor.sample_rows import RowCounter
from nndebug.records import StepRecord

N, FEATURES, CLASSES, BATCH, STEPS = 600, 12, 4, 32, 60


def data(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(N, FEATURES)).astype(np.float32)
    y = x[:, :CLASSES].argmax(axis=1).astype(np.int64)
    return x, y


def torch_run(kind):
    torch = pytest.importorskip("torch")
    from torch.utils.data import DataLoader, TensorDataset, WeightedRandomSampler
    torch.manual_seed(0)
    x, y = map(torch.tensor, data())
    dataset = TensorDataset(x, y)
    counts = torch.bincount(y, minlength=CLASSES).double()
    if kind == "class weights":              # the bug: one weight per class
        sampler = WeightedRandomSampler(1.0 / counts, num_samples=len(dataset))
        loader = DataLoader(dataset, batch_size=BATCH, sampler=sampler)
    elif kind == "sample weights":           # the fix: one weight per sample
        sampler = WeightedRandomSampler((1.0 / counts)[y], num_samples=len(dataset))
        loader = DataLoader(dataset, batch_size=BATCH, sampler=sampler)
    elif kind == "shuffled":
        loader = DataLoader(dataset, batch_size=BATCH, shuffle=True)
    else:                                    # full batch: the first 32 rows every step
        loader = [(x[:BATCH], y[:BATCH])] * 20
    model = torch.nn.Sequential(torch.nn.Linear(FEATURES, 32), torch.nn.ReLU(),
                                torch.nn.Linear(32, CLASSES))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    loss_fn = torch.nn.CrossEntropyLoss()
    with nd.watch(model, optimizer) as mon:
        step = 0
        while step < STEPS:
            for xb, yb in loader:
                optimizer.zero_grad()
                loss = loss_fn(model(xb), yb)
                loss.backward()
                optimizer.step()
                mon.step(loss)
                step += 1
                if step == STEPS:
                    break
    return mon


def minigrad_run(rows_drawn):
    x, y = data()
    mg.manual_seed(0)
    rng = np.random.default_rng(1)
    model = mnn.Sequential(mnn.Linear(FEATURES, 32), mnn.ReLU(), mnn.Linear(32, CLASSES))
    optimizer = moptim.SGD(model.parameters(), lr=0.05)
    loss_fn = mnn.CrossEntropyLoss()
    with nd.watch(model, optimizer) as mon:
        for _ in range(STEPS):
            index = rng.integers(0, rows_drawn, BATCH)
            optimizer.zero_grad()
            loss = loss_fn(model(mg.tensor(x[index])), mg.tensor(y[index]))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def few_samples(mon):
    return [f for f in mon.findings() if f.code == "BATCHES_FROM_FEW_SAMPLES"]


def test_a_sampler_given_class_weights_is_named():
    found = few_samples(torch_run("class weights"))
    assert len(found) == 1 and found[0].severity == "warning"
    assert found[0].evidence["samples_seen"] == CLASSES
    assert "one weight per SAMPLE" in found[0].fix


@pytest.mark.parametrize("kind", ["sample weights", "shuffled", "full batch"])
def test_healthy_loaders_stay_silent(kind):
    assert few_samples(torch_run(kind)) == []


def test_minigrad_batches_drawn_from_four_rows_are_named_and_from_all_rows_are_not():
    assert len(few_samples(minigrad_run(CLASSES))) == 1
    assert few_samples(minigrad_run(N)) == []


def test_the_counter_counts_rows_within_and_across_batches():
    from nndebug.observed import Observed
    counter, observed = RowCounter(), Observed()
    rows = np.repeat(np.arange(3.0)[:, None], 4, axis=1)          # 3 distinct rows of 4
    for step, batch in enumerate([rows[[0, 0, 1, 1]], rows[[2, 2, 2, 0]]]):
        record = StepRecord(step=step)
        record.inputs = {"batch": 4.0}
        counter.take(batch.reshape(-1), record, observed)
    assert observed.batch_rows == [(0, 4, 2, 2), (1, 4, 2, 3)]


def test_the_counts_are_saved_and_loaded_with_the_run(tmp_path):
    mon = torch_run("class weights")
    path = mon.save(tmp_path / "run.nndebug")
    loaded = nd.load_run(path)
    assert loaded.run.observed.batch_rows == mon.run.observed.batch_rows
    assert [f.code for f in loaded.findings() if f.code == "BATCHES_FROM_FEW_SAMPLES"] == \
        ["BATCHES_FROM_FEW_SAMPLES"]

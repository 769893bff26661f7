"""SCHEDULE_LENGTH_MISMATCH for a schedule counted in micro-batches and stepped once per
optimizer step under gradient accumulation (nanoT5#8, transformers#5072; real-bug batch 271):
the planned length equals the run's backward passes, k times its optimizer steps, so the
schedule walks 1/k of its plan. Silent on the twin counted in optimizer steps, on a schedule
stepped per micro-batch, on accumulation without a schedule, and on a run without
accumulation stopped at a quarter of its plan (a short run on purpose looks like that, and
its plan is no backward-pass count). Both frameworks: the backward count is the tensor hook
``monitor/carried_gradients.py`` keeps on either."""
import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as mnn
import nndebug as nd

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.usefixtures("one_torch_thread")

CODE = "SCHEDULE_LENGTH_MISMATCH"
STEPS, ACCUMULATE, ROWS = 60, 4, 16


def linear_decay(total):
    return lambda step: max(0.0, 1.0 - step / total)


def data(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(512, 8)).astype(np.float32)
    y = (x[:, :2].sum(1) > 0).astype(np.int64)
    return x, y


def train_torch(total, accumulate=ACCUMULATE, per_micro_batch=False, schedule=True,
                steps=STEPS):
    torch.manual_seed(0)
    x, y = (torch.from_numpy(a) for a in data())
    model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, linear_decay(total)) \
        if schedule else None
    with nd.watch(model, optimizer) as mon:
        for step in range(steps):
            for micro in range(accumulate):
                rows = torch.randint(0, len(x), (ROWS,))
                loss = torch.nn.functional.cross_entropy(model(x[rows]), y[rows]) / accumulate
                loss.backward()
                if scheduler is not None and per_micro_batch:
                    scheduler.step()
            optimizer.step()
            optimizer.zero_grad()
            if scheduler is not None and not per_micro_batch:
                scheduler.step()
            mon.step(loss * accumulate)
    return mon


def train_minigrad(total, accumulate=ACCUMULATE):
    mg.manual_seed(0)
    x, y = data()
    rng = np.random.default_rng(1)
    model = mnn.Sequential(mnn.Linear(8, 32), mnn.ReLU(), mnn.Linear(32, 2))
    optimizer = mg.optim.SGD(model.parameters(), lr=0.1)
    scheduler = mg.optim.lr_scheduler.LambdaLR(optimizer, linear_decay(total))
    with nd.watch(model, optimizer) as mon:
        for step in range(STEPS):
            for micro in range(accumulate):
                rows = rng.integers(0, len(x), ROWS)
                loss = mnn.functional.cross_entropy(model(mg.tensor(x[rows])),
                                                    mg.tensor(y[rows])) / accumulate
                loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            scheduler.step()
            mon.step(loss * accumulate)
    return mon


def codes(mon):
    return {f.code for f in mon.findings() if f.severity != "info"}


def test_a_schedule_counted_in_micro_batches_is_named_on_both_frameworks():
    for mon in (train_torch(total=STEPS * ACCUMULATE), train_minigrad(total=STEPS * ACCUMULATE)):
        found = [f for f in mon.findings() if f.code == CODE]
        assert found and found[0].severity == "warning", mon.report()
        assert found[0].evidence["micro_batches_per_step"] == pytest.approx(ACCUMULATE)
        assert "accumulation_steps" in found[0].fix


def test_the_twin_counted_in_optimizer_steps_is_silent_on_both_frameworks():
    assert CODE not in codes(train_torch(total=STEPS))
    assert CODE not in codes(train_minigrad(total=STEPS))


@pytest.mark.filterwarnings("ignore:Detected call of")
def test_a_schedule_stepped_per_micro_batch_is_silent():
    assert CODE not in codes(train_torch(total=STEPS * ACCUMULATE, per_micro_batch=True))


def test_accumulation_without_a_schedule_is_silent():
    assert CODE not in codes(train_torch(total=STEPS * ACCUMULATE, schedule=False))


def test_a_run_without_accumulation_stopped_at_a_quarter_of_its_plan_is_silent():
    assert CODE not in codes(train_torch(total=STEPS * ACCUMULATE, accumulate=1))


def test_the_backward_count_survives_a_saved_run(tmp_path):
    mon = train_torch(total=STEPS * ACCUMULATE)
    path = tmp_path / "run.nndebug"
    mon.save(str(path))
    loaded = nd.load_run(str(path))
    assert loaded.run.observed.train_backward_total == STEPS * ACCUMULATE
    assert CODE in {f.code for f in loaded.findings()}

"""Real-bug batch 152 (tabular and recommender models): batches that are coherent chunks of
the data - one day per batch, as data streamed from storage come - make the loss jump
whenever a chunk the model has not fitted yet is drawn. Those spikes are the data's, not an
overshooting optimizer's: the healthy one-day-per-batch regressor (the fixed twin of
``target_scaler_refit_on_every_batch``) is silent, while the same loop at a rate that really
overshoots is still named, and shuffled rows are not taken for chunks."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import target_scaler_refit_on_every_batch as days_case  # noqa: E402
from nndebug.rules.context import Context  # noqa: E402
from nndebug.rules.curve import batches_are_chunks  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _day_loop(shuffled_rows=False, lr=1e-3, steps=480):
    """The twin's loop (one scaler fitted once), one day per batch or rows shuffled."""
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y = days_case.days(rng)
    x, y = x[:days_case.TRAIN_DAYS], y[:days_case.TRAIN_DAYS]
    if shuffled_rows:
        order = torch.from_numpy(rng.permutation(x.shape[0] * x.shape[1]))
        x = x.reshape(-1, x.shape[-1])[order].reshape(x.shape)
        y = y.reshape(-1)[order].reshape(y.shape)
    mean, std = y.mean(), y.std()
    model = nn.Sequential(nn.Linear(x.shape[-1], 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                          nn.Linear(64, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    with nd.watch(model, optimizer) as mon:
        for step in range(steps):
            day = step % x.shape[0]
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(x[day]).squeeze(-1), (y[day] - mean) / std)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_the_one_day_per_batch_twin_is_silent():
    mon = days_case.run(fixed=True)
    assert mon.held_out_r2 > 0.9
    assert not _problems(mon)


def test_one_day_per_batch_reads_as_chunks_and_shuffled_rows_do_not():
    assert batches_are_chunks(Context(_day_loop().run))
    assert not batches_are_chunks(Context(_day_loop(shuffled_rows=True).run))

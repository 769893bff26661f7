"""Real-bug batch 22 (Dataset and DataLoader bugs): BATCHES_DUPLICATED_ACROSS_WORKERS names
DataLoader workers that serve the same "random" batches (each started from a copy of the
Dataset's generator), and stays silent on what looks partly the same: stepping twice on
every batch on purpose, a loader that never reshuffles, a two-sample set read whole with
shuffle=True, full-batch training."""
import numpy as np
import pytest

from nndebug.rules.worker_duplicates import duplicated_by_workers

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import dataset_generator_copied_to_workers as workers_case  # noqa: E402
from benchmarks.real_bugs import dataset_length_counts_fields as two_samples_case  # noqa: E402
from benchmarks.real_bugs._common import batches, classification, mlp  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
CODE = "BATCHES_DUPLICATED_ACROSS_WORKERS"


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


# --- the verdict on fingerprint sequences (one number per step, equal batches equal) ---

def test_two_workers_with_copied_generators_are_named():
    epoch = [1.0, 1.0, 2.0, 2.0, 3.0, 3.0]            # runs of 2, then the epoch replays
    found = duplicated_by_workers(epoch * 6)
    assert found is not None
    repeated, run_length, period, _ = found
    assert (run_length, period) == (2, 6) and repeated == 16


def test_stepping_twice_on_every_batch_is_not_named():
    echoed = [float(i // 2) for i in range(32)]        # runs of 2, never an old batch again
    assert duplicated_by_workers(echoed) is None


def test_an_unshuffled_loader_is_not_named():
    assert duplicated_by_workers([1.0, 2.0, 3.0, 4.0] * 8) is None


def test_full_batch_training_is_not_named():
    assert duplicated_by_workers([5.0] * 32) is None


def test_a_two_sample_set_shuffled_is_not_named():
    orders = np.random.default_rng(0).integers(0, 2, 32).astype(float)
    assert duplicated_by_workers(orders) is None


# --- whole runs ---

def test_the_report_is_named_and_its_fixed_twin_is_silent():
    assert CODE in _problems(workers_case.run())
    assert not _problems(workers_case.run(fixed=True))


def test_a_two_sample_set_read_with_shuffle_is_not_blamed_on_workers():
    assert CODE not in _problems(two_samples_case.run())


def test_two_steps_on_every_shuffled_batch_stay_silent():
    """Data echoing: each batch of a shuffled loader trained on twice, on purpose."""
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, 60):
            for _ in range(2):
                optimizer.zero_grad()
                loss = loss_fn(model(xb), yb)
                loss.backward()
                optimizer.step()
                mon.step(loss)
    assert CODE not in {f.code for f in mon.findings()}


def test_short_or_missing_fingerprints_give_no_verdict():
    nan = float("nan")
    for fingerprints in ([], [1.0], [1.0, 1.0, 2.0], [nan] * 40, [1.0, 1.0, nan, 2.0, 2.0] * 8):
        assert duplicated_by_workers(fingerprints) is None


def test_two_orders_of_one_tiny_batch_are_not_taken_for_an_epoch():
    """DATA_ORDER_REPEATS: the two orders of a two-sample set recur at random and, on the
    sparse fingerprinted steps, can line up a fixed distance apart by chance; an epoch
    visits each batch once, so that is no period (it read "38 batches per epoch")."""
    from nndebug.records import is_fingerprinted_step
    from nndebug.rules.data_order import repeat_period
    for seed in range(20):
        orders = np.random.default_rng(seed).integers(0, 2, 150).astype(float)
        kept = [v if is_fingerprinted_step(s) else np.nan for s, v in enumerate(orders)]
        assert repeat_period(kept) is None
    assert CODE not in _problems(two_samples_case.run())
    assert "DATA_ORDER_REPEATS" not in {f.code for f in two_samples_case.run().findings()}

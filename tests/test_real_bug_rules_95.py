"""Real-bug batch 95 (custom Dataset, DataLoader, sampler and collate_fn implementations):
a __getitem__ normalising its stored images in place, one rescaling its stored box targets
in place (DATASET_MODIFIED_BY_READS), a collator keeping batch[0] (COLLATE_KEEPS_ONE_SAMPLE),
an IterableDataset streamed whole by each of two workers (BATCHES_DUPLICATED_ACROSS_WORKERS
from runs of N equal batches when such a loader is in scope), and a collater sorting inputs
but not targets (LOSS_AT_CHANCE, as it came). Variants: a CNN over numpy-stored images
brightened in place, a lambda collate keeping the first sample at another batch size, runs
of three workers' batches on hand-made fingerprints. Fixed twins silent, and the healthy
look-alikes a careless rule would flag: the stored data normalised once, in place, by the
loop; a cache filled lazily by the reads; a collated list trained sample by sample; a
loader of batch_size=1 in scope; data echoed twice with a map-style loader."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.utils.data import DataLoader, Dataset, TensorDataset  # noqa: E402

from benchmarks.real_bugs import box_targets_rescaled_in_place_on_every_read as boxes  # noqa: E402,E501
from benchmarks.real_bugs import collater_sorts_inputs_not_targets as sorted_collater  # noqa: E402,E501
from benchmarks.real_bugs import collator_keeps_first_sample_only as first_only  # noqa: E402
from benchmarks.real_bugs import dataset_normalised_in_place_on_every_read as normalised  # noqa: E402,E501
from benchmarks.real_bugs import iterable_dataset_copied_to_every_worker as iterable  # noqa: E402,E501
from benchmarks.real_bugs._common import classification, mlp  # noqa: E402
from nndebug.rules.data_loaders import steady_drift  # noqa: E402
from nndebug.rules.worker_duplicates import duplicated_by_iterable_workers  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
MODIFIED, ONE_SAMPLE = "DATASET_MODIFIED_BY_READS", "COLLATE_KEEPS_ONE_SAMPLE"
DUPLICATED = "BATCHES_DUPLICATED_ACROSS_WORKERS"


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _train(loader, model, steps, lr=1e-3, per_epoch=None, per_sample=False, **watch):
    """The ordinary loop over ``loader`` under watch; ``per_epoch(epoch)`` before each epoch;
    ``per_sample``: the loader yields lists of (x, y), trained one by one in one step."""
    import nndebug as nd
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    done, epoch = 0, 0
    with nd.watch(model, optimizer, **watch) as mon:
        while done < steps:
            if per_epoch is not None:
                per_epoch(epoch)
            for batch in loader:
                optimizer.zero_grad()
                if per_sample:
                    loss = sum(nn.functional.cross_entropy(model(x[None]), y[None])
                               for x, y in batch) / len(batch)
                else:
                    loss = nn.functional.cross_entropy(model(batch[0]), batch[1])
                loss.backward()
                optimizer.step()
                mon.step(loss)
                done += 1
                if done == steps:
                    break
            epoch += 1
    return mon


def _digits(n=400):
    x, y = classification()
    return x[:n].clone(), y[:n]


# --- the planted cases and their twins -----------------------------------------------------

def test_images_normalised_in_place_are_named():
    found = [f for f in normalised.run().findings() if f.code == MODIFIED]
    assert found and found[0].severity in PROBLEMS
    assert found[0].evidence["factor"] > 100 and found[0].evidence["attribute"] == "x"
    assert not _problems(normalised.run(fixed=True))


def test_box_targets_rescaled_in_place_are_named():
    found = [f for f in boxes.run().findings() if f.code == MODIFIED]
    assert found and found[0].evidence["attribute"] == "boxes"
    assert "shrank" in found[0].message
    assert not _problems(boxes.run(fixed=True))


def test_collator_keeping_the_first_sample_is_named():
    found = [f for f in first_only.run().findings() if f.code == ONE_SAMPLE]
    assert found and found[0].evidence["batch_size"] == 32
    assert not _problems(first_only.run(fixed=True))


def test_iterable_dataset_streamed_by_every_worker_is_named():
    found = [f for f in iterable.run().findings() if f.code == DUPLICATED]
    assert found and found[0].evidence["workers"] == 2
    assert not _problems(iterable.run(fixed=True))


def test_collater_sorting_only_the_inputs_reaches_chance():
    assert "LOSS_AT_CHANCE" in _problems(sorted_collater.run())
    assert not _problems(sorted_collater.run(fixed=True))


# --- variants --------------------------------------------------------------------------------

class BrightenedImages(Dataset):
    """Numpy-stored 1x8x8 images, brightened on every read - in place or on a copy."""

    def __init__(self, x, y, in_place):
        self.images = x.numpy().reshape(-1, 1, 8, 8).copy()
        self.labels, self.in_place = y, in_place

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        image = self.images[i] if self.in_place else self.images[i].copy()
        image += 0.2
        return torch.from_numpy(image), self.labels[i]


def _cnn():
    return nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.Flatten(),
                         nn.Linear(8 * 64, 10))


@pytest.mark.parametrize("in_place", [True, False])
def test_cnn_over_numpy_images_brightened_in_place(in_place):
    torch.manual_seed(0)
    x, y = _digits(320)
    loader = DataLoader(BrightenedImages(x, y, in_place), batch_size=32, shuffle=True,
                        generator=torch.Generator().manual_seed(0))
    codes = _problems(_train(loader, _cnn(), steps=100))
    assert (MODIFIED in codes) == in_place


@pytest.mark.parametrize("keep_first", [True, False])
def test_lambda_collate_keeping_the_first_sample(keep_first):
    torch.manual_seed(0)
    x, y = _digits()
    first = (lambda batch: (batch[0][0][None], batch[0][1][None])) if keep_first else \
        (lambda batch: (torch.stack([b[0] for b in batch]), torch.stack([b[1] for b in batch])))
    loader = DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True, collate_fn=first,
                        generator=torch.Generator().manual_seed(0))
    assert (ONE_SAMPLE in _problems(_train(loader, mlp(), steps=60))) == keep_first


def test_runs_of_three_workers_batches_on_hand_made_fingerprints():
    values = [float(v) for v in np.repeat(np.arange(11), 3)[:32]]
    found = duplicated_by_iterable_workers(values, 3)
    assert found is not None and found[1] == 3
    assert duplicated_by_iterable_workers(values, 2) is None       # runs of 3, not 2
    assert duplicated_by_iterable_workers([float(v) for v in range(32)], 3) is None
    assert duplicated_by_iterable_workers(values, 0) is None       # no iterable loader


def test_steady_drift_on_hand_made_rows():
    grows = [(0, 1.0), (1, 1.1), (2, 1.2), (4, 1.5), (8, 2.0), (16, 3.0), (32, 9.0),
             (64, 40.0)]
    assert steady_drift(grows, 64)[0] == 1
    once = [(0, 1.0), (1, 1.0), (2, 1.0), (4, 3.0), (8, 3.0), (16, 3.0), (32, 3.0)]
    assert steady_drift(once, 32) is None                          # rescaled one time
    early = [(0, 1.0), (1, 2.0), (2, 4.0), (4, 8.0), (8, 8.0), (16, 8.0), (32, 8.0),
             (64, 8.0)]
    assert steady_drift(early, 64) is None                         # stopped in the first half
    both_ways = [(0, 1.0), (1, 2.0), (2, 1.0), (4, 3.0), (8, 1.5), (16, 6.0), (32, 7.0)]
    assert steady_drift(both_ways, 32) is None
    from_zero = [(0, 0.0), (1, 1.0), (2, 2.0), (4, 3.0), (8, 4.0), (16, 5.0), (32, 6.0)]
    assert steady_drift(from_zero, 32) is None                     # a cache filling up


# --- healthy look-alikes -------------------------------------------------------------------

def test_data_normalised_once_in_place_by_the_loop_stays_silent():
    torch.manual_seed(0)
    x, y = _digits()
    data = TensorDataset(x, y)
    loader = DataLoader(data, batch_size=32, shuffle=True,
                        generator=torch.Generator().manual_seed(0))

    def normalise_before_epoch(epoch):        # once, in place, after watch started
        if epoch == 1:
            stored = data.tensors[0]
            stored.sub_(stored.mean()).div_(stored.std())
    mon = _train(loader, mlp(), steps=100, per_epoch=normalise_before_epoch)
    assert MODIFIED not in _problems(mon)


class LazyCache(Dataset):
    """Features computed on first read and kept in a zero-initialised cache."""

    def __init__(self, x, y):
        self.x, self.y = x, y
        self.cache = torch.zeros_like(x)
        self.filled = torch.zeros(len(x), dtype=torch.bool)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        if not self.filled[i]:
            self.cache[i] = self.x[i] * 2 - 1
            self.filled[i] = True
        return self.cache[i], self.y[i]


def test_lazily_filled_cache_stays_silent():
    torch.manual_seed(0)
    x, y = _digits()
    loader = DataLoader(LazyCache(x, y), batch_size=32, shuffle=True,
                        generator=torch.Generator().manual_seed(0))
    assert MODIFIED not in _problems(_train(loader, mlp(), steps=80))


def test_collated_list_trained_sample_by_sample_stays_silent():
    torch.manual_seed(0)
    x, y = _digits()
    loader = DataLoader(TensorDataset(x, y), batch_size=8, shuffle=True,
                        collate_fn=lambda batch: batch,
                        generator=torch.Generator().manual_seed(0))
    mon = _train(loader, mlp(), steps=40, per_sample=True)
    assert ONE_SAMPLE not in _problems(mon)
    assert all(f == 8 for _, f, _ in mon.run.observed.loader_batch_forwards)


def test_a_loader_of_one_sample_in_scope_stays_silent():
    torch.manual_seed(0)
    x, y = _digits()
    single = DataLoader(TensorDataset(x, y), batch_size=1, shuffle=True,  # noqa: F841
                        generator=torch.Generator().manual_seed(1))
    loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True,
                        collate_fn=lambda batch: (batch[0][0][None], batch[0][1][None]),
                        generator=torch.Generator().manual_seed(0))
    assert ONE_SAMPLE not in _problems(_train(loader, mlp(), steps=40))


def test_data_echoed_twice_from_a_map_style_loader_stays_silent():
    import nndebug as nd
    torch.manual_seed(0)
    x, y = _digits()
    loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True,
                        generator=torch.Generator().manual_seed(0))
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer) as mon:
        for epoch in range(3):
            for xb, yb in loader:
                for _ in range(2):                   # data echoing, on purpose
                    optimizer.zero_grad()
                    loss = nn.functional.cross_entropy(model(xb), yb)
                    loss.backward()
                    optimizer.step()
                    mon.step(loss)
    assert DUPLICATED not in _problems(mon)


# --- the observer ----------------------------------------------------------------------------

def test_observer_lets_go_and_rows_are_saved_and_loaded(tmp_path):
    import nndebug as nd
    mon = first_only.run(steps=30)
    observed = mon.run.observed
    assert observed.scoped_loaders == [("loader", 32, 0, 0, 1, 1000)]
    assert observed.stored_data_scales and observed.loader_batch_forwards
    assert mon.around.scoped_loaders._arrays == []          # let go at close
    path = tmp_path / "run.nndebug"
    mon.save(str(path))
    loaded = nd.load_run(str(path)).run.observed
    for name in ("scoped_loaders", "stored_data_scales", "loader_batch_forwards"):
        assert [list(r) for r in getattr(loaded, name)] == \
            [list(r) for r in getattr(observed, name)]


def test_watch_leaves_the_dataset_untouched():
    torch.manual_seed(0)
    x, y = _digits()
    data = TensorDataset(x, y)
    before = data.tensors[0].clone()
    loader = DataLoader(data, batch_size=32, shuffle=True,
                        generator=torch.Generator().manual_seed(0))
    _train(loader, mlp(), steps=20)
    assert torch.equal(data.tensors[0], before)

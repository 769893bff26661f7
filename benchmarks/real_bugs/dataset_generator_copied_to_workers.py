"""A Dataset that makes its own random draws with a NumPy generator created in __init__,
read by a DataLoader with two worker processes: each worker starts from a copy of the same
generator, so the two workers return the very same "random" batches, and since the workers
are started afresh every epoch, every epoch repeats the first one draw for draw.

Reported: "np.random generates the same random numbers for each data batch" -
https://github.com/wolny/pytorch-3dunet/issues/32 ("the angles in RandomRotate and
brightness_factors in RandomContrast in each batch are the same ... When I set num_workers
... to 0, transformers work just fine"; the maintainer: "workers share the common instance
of the `Dataset` which was initialized with a fixed seed"; the same as
https://github.com/pytorch/pytorch/issues/5059). Since torch 1.9 the DataLoader seeds the
global ``np.random`` of each worker, but a generator the dataset holds is still copied
as it is. Here the dataset draws which digit to serve (a random-sampling dataset, as
patch samplers do) and the noise added to it from ``self.rng``; 256 items an epoch, two
workers. The run trains on 128 distinct noisy digits however long it runs.
Fix: give each worker its own generator in ``worker_init_fn``, seeded from the seed torch
gives the worker (``torch.utils.data.get_worker_info().seed``, new every epoch).

Measured: held-out accuracy 0.885 against the fixed twin's 0.926 after 100 steps (the
bug's training loss 0.07 against 0.52: it memorises its 128 noisy digits).
"""
import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset, get_worker_info

import nndebug as nd
from benchmarks.real_bugs._common import classification, mlp

TITLE = "np.random generates the same random numbers for each data batch"
LINK = "https://github.com/wolny/pytorch-3dunet/issues/32"
EXPECTED = ("BATCHES_DUPLICATED_ACROSS_WORKERS",)
STEPS = 100
BATCH = 64
EPOCH_ITEMS = 256          # items a "virtual epoch" of the random-sampling dataset serves
POOL = 1000                # training digits the dataset draws from (the rest held out)
NOISE = 0.3                # the augmentation: Gaussian noise on the pixels


class RandomDigits(Dataset):
    """Each item: a digit drawn at random from the pool, plus random noise, both from the
    dataset's own generator (created once, here)."""

    def __init__(self, x, y):
        self.x, self.y = x, y
        self.rng = np.random.default_rng(0)

    def __len__(self):
        return EPOCH_ITEMS

    def __getitem__(self, index):      # the index is not needed: the draw is random
        i = int(self.rng.integers(len(self.x)))
        noise = torch.from_numpy(self.rng.normal(0.0, NOISE, 64).astype(np.float32))
        return self.x[i] + noise, self.y[i]


def shuffled_digits():
    x, y = classification()
    order = torch.from_numpy(np.random.default_rng(0).permutation(len(x)))
    return x[order], y[order]


def held_out():
    """The digits the dataset never draws from (for measuring what the model learned)."""
    x, y = shuffled_digits()
    return x[POOL:], y[POOL:]


def reseed_worker(worker_id):
    """The fix: a generator of the worker's own, from the seed torch gave the worker."""
    info = get_worker_info()
    info.dataset.rng = np.random.default_rng(info.seed)


def train(fixed=False, steps=STEPS, **watch):
    """The monitor and the trained model (the model for measuring held-out accuracy)."""
    torch.manual_seed(0)
    x, y = shuffled_digits()
    data = RandomDigits(x[:POOL], y[:POOL])
    # BUG when not fixed: both workers start from a copy of the dataset's generator
    loader = DataLoader(data, batch_size=BATCH, num_workers=2,
                        worker_init_fn=reseed_worker if fixed else None)
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    done = 0
    with nd.watch(model, optimizer, **watch) as mon:
        while done < steps:
            for xb, yb in loader:
                optimizer.zero_grad()
                loss = loss_fn(model(xb), yb)
                loss.backward()
                optimizer.step()
                mon.step(loss)
                done += 1
                if done == steps:
                    break
    return mon, model


def run(fixed=False, steps=STEPS, **watch):
    return train(fixed, steps, **watch)[0]

"""A batch sampler over several datasets makes every batch from ONE dataset, picking which
dataset uniformly at random among those not yet used up. With datasets of unequal size
the small one is drawn as often as the large one, runs out early, and the rest of every
epoch is made of the large dataset only. Training ends at the end of an epoch, after a
long run of batches that never show the small dataset: the model has drifted away from
it. Every batch is well formed and the loss looks healthy - it is low on what it is shown.

Reported: "Fix sampler" - https://github.com/illuin-tech/colpali/pull/316
(colpali_engine's SingleDatasetBatchSampler chose each batch's dataset with
``torch.randint`` over the available datasets: "Multi dataset sampling was flawed when a
dataset was bigger than the other. It resulted on the end of the training only containing
a single dataset." The fix weights the choice of dataset by the samples each has left).
Here the training digits are split into two datasets behind one ``ConcatDataset``: digits
0-6 (about 900 rows) and digits 7-9 (about 390 rows); a ``DataLoader`` takes the sampler
as its ``batch_sampler`` (batches of 32 from one dataset each), an MLP trains under Adam
for 6 epochs. Fix: draw the dataset with probability proportional to the batches it has
left (``torch.multinomial`` over the remaining counts).

Measured (held-out accuracy on 497 digits never trained on, all ten classes, at the end of
training): seed 0: 0.817 with the bug against 0.877 for the fixed twin (digits 7-9 alone:
0.589 against 0.788); seeds shifted by 1000: 0.803 against 0.883 (0.562 against 0.815).
"""
import torch
from torch.nn import functional as F
from torch.utils.data import ConcatDataset, DataLoader, Sampler, TensorDataset

import nndebug as nd
from benchmarks.real_bugs._dp157 import accuracy, digits_split, mlp

TITLE = "Fix sampler"
LINK = "https://github.com/illuin-tech/colpali/pull/316"
EXPECTED = ("SOURCE_EXHAUSTED_MID_EPOCH",)
BATCH = 32
EPOCHS = 6
SPLIT = 7                      # digits below it form the large dataset, the rest the small


class SingleDatasetBatchSampler(Sampler):
    """Batches of indices into a ConcatDataset, each batch from one member dataset."""

    def __init__(self, sizes, batch_size, fixed, generator):
        self.sizes, self.batch_size, self.fixed = sizes, batch_size, fixed
        self.generator = generator
        self.starts = [sum(sizes[:i]) for i in range(len(sizes))]

    def __len__(self):
        return sum(size // self.batch_size for size in self.sizes)

    def __iter__(self):
        orders = [torch.randperm(size, generator=self.generator) for size in self.sizes]
        left = torch.tensor([size // self.batch_size for size in self.sizes])
        used = [0] * len(self.sizes)
        while left.sum() > 0:
            if self.fixed:       # the fix: weight each dataset by the batches it has left
                pick = torch.multinomial(left.float(), 1, generator=self.generator).item()
            else:                # BUG: uniform over the datasets not yet used up
                available = torch.nonzero(left).flatten()
                pick = available[torch.randint(len(available), (1,),
                                               generator=self.generator)].item()
            rows = orders[pick][used[pick] * self.batch_size:(used[pick] + 1) * self.batch_size]
            used[pick] += 1
            left[pick] -= 1
            yield (rows + self.starts[pick]).tolist()


def sources():
    x, y, x_test, y_test = digits_split()
    large, small = y < SPLIT, y >= SPLIT
    return [TensorDataset(x[large], y[large]), TensorDataset(x[small], y[small])], \
        x_test, y_test


def steps_per_epoch():
    parts, _, _ = sources()
    return sum(len(p) // BATCH for p in parts)


STEPS = EPOCHS * steps_per_epoch()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    parts, x_test, y_test = sources()
    sampler = SingleDatasetBatchSampler([len(p) for p in parts], BATCH, fixed,
                                        torch.Generator().manual_seed(
                                            int(torch.randint(1 << 30, (1,)))))
    loader = DataLoader(ConcatDataset(parts), batch_sampler=sampler)
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    done = 0
    with nd.watch(model, optimizer, **watch) as mon:
        while done < steps:
            for xb, yb in loader:
                optimizer.zero_grad()
                loss = F.cross_entropy(model(xb), yb)
                loss.backward()
                optimizer.step()
                mon.step(loss)
                done += 1
                if done == steps:
                    break
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    small = y_test >= SPLIT
    mon.small_source_accuracy = accuracy(model, x_test[small], y_test[small])
    return mon

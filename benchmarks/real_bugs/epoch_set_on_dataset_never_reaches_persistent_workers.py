"""A mixture Dataset draws, for each index, a sample from its sources with replacement,
seeded by (seed, epoch, index) so that every epoch maps the indices to a fresh set of
samples. The loop advances ``dataset.epoch`` at the start of each epoch - in the main
process. The DataLoader runs with ``num_workers=2, persistent_workers=True``: the workers
hold their own copies of the dataset, made once, and never see the new epoch. Every epoch
replays the epoch-0 mapping: the same hundred-odd samples for the whole run, most of the
data never shown. Nothing errs, the batches are well formed, the loss keeps falling (on a
set it is memorising).

Reported: "LeRobotMixtureDataset repeats the same underlying samples across epochs with
persistent_workers=True" - https://github.com/starVLA/starVLA/issues/470 (the mixture
dataset samples with replacement from a mapping fixed by the epoch; with persistent
workers stuck at ``epoch=0`` "the same with-replacement sample set is replayed for the
entire training run", about 27% of the source frames never sampled in the reporter's
mixture. The fix (starVLA/starVLA#471) keeps the epoch in shared memory so that
``set_epoch`` reaches the workers). Here two sources - the training digits 0-4 and 5-9 -
mixed with equal weights, 128 draws an epoch, a DataLoader with two persistent workers
(batch 32) and an MLP under Adam for 80 epochs. Fix: the epoch kept in a shared-memory
tensor that ``set_epoch`` writes and the workers read.

Measured (held-out accuracy on 497 digits never trained on): seed 0: 0.851 with the bug
against 0.905 for the fixed twin (distinct training digits seen: 124 against 1299 of
1300); seeds shifted by 1000: 0.851 against 0.903 (119 against 1300).
"""
import torch
from torch.nn import functional as F
from torch.utils.data import DataLoader, Dataset

import nndebug as nd
from benchmarks.real_bugs._dp157 import accuracy, digits_split, mlp

TITLE = ("LeRobotMixtureDataset repeats the same underlying samples across epochs with "
         "persistent_workers=True")
LINK = "https://github.com/starVLA/starVLA/issues/470"
EXPECTED = ("SAME_SAMPLES_EVERY_EPOCH",)
EPOCHS = 80
PER_EPOCH = 128
BATCH = 32
STEPS = EPOCHS * PER_EPOCH // BATCH


class MixtureDataset(Dataset):
    """``PER_EPOCH`` draws an epoch: pick a source by weight, then a row of it, both from a
    generator seeded by (seed, epoch, index)."""

    def __init__(self, sources, weights, seed, fixed):
        self.sources = sources
        self.weights = torch.tensor(weights, dtype=torch.float)
        self.seed = seed
        self.fixed = fixed
        # the fix keeps the epoch in shared memory; the bug in a plain attribute
        self._shared_epoch = torch.zeros(1, dtype=torch.long).share_memory_()
        self._epoch = 0

    def set_epoch(self, epoch):
        if self.fixed:
            self._shared_epoch[0] = epoch
        else:                # BUG: changes the main process's copy only
            self._epoch = epoch

    @property
    def epoch(self):
        return int(self._shared_epoch[0]) if self.fixed else self._epoch

    def __len__(self):
        return PER_EPOCH

    def __getitem__(self, index):
        g = torch.Generator().manual_seed(self.seed + 1_000_003 * self.epoch + index)
        source = self.sources[torch.multinomial(self.weights, 1, generator=g).item()]
        row = torch.randint(len(source[0]), (1,), generator=g).item()
        return source[0][row], source[1][row], source[2][row]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = digits_split()
    ids = torch.arange(len(x))
    low = y < 5
    sources = [(x[low], y[low], ids[low]), (x[~low], y[~low], ids[~low])]
    data = MixtureDataset(sources, [0.5, 0.5], int(torch.randint(1 << 30, (1,))), fixed)
    loader = DataLoader(data, batch_size=BATCH, shuffle=True, num_workers=2,
                        persistent_workers=True,
                        generator=torch.Generator().manual_seed(
                            int(torch.randint(1 << 30, (1,)))))
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    seen = set()
    done, epoch = 0, 0
    with nd.watch(model, optimizer, **watch) as mon:
        while done < steps:
            data.set_epoch(epoch)
            for xb, yb, idb in loader:
                seen.update(idb.tolist())
                optimizer.zero_grad()
                loss = F.cross_entropy(model(xb), yb)
                loss.backward()
                optimizer.step()
                mon.step(loss)
                done += 1
                if done == steps:
                    break
            epoch += 1
    del loader                   # stop the persistent workers
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    mon.distinct_training_digits = len(seen)
    return mon

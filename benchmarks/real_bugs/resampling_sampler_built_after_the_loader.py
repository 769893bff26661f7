"""Class-balanced re-sampling that never reaches the loader: the training script builds
``train_loader`` once, with ``sampler=None`` (plain shuffling), and then, every epoch under
the "Resample" rule, assigns ``train_sampler = ImbalancedDatasetSampler(train_dataset)`` - a
new variable the already-built loader never reads. Every epoch draws the long-tailed data at
its natural shares, exactly like the un-balanced baseline, while the run is labelled (and
compared in tables) as re-sampled. Nothing errors; the loss falls as usual.

Reported: "Points for sampler" - https://github.com/kaidic/LDAM-DRW/issues/7 ("train_sampler
is first declared at L167 in cifar_train.py then, train_loader gets the sampler in L169-171
... I think this new train_sampler object does not affect train_loader"; another user: "I
also found this issue when running the code. I think it only effects 'Resample' and can be
fixed by adding a line after the 'ImbalancedDatasetSampler' is created to make sure the
dataloader use the created sampler"). Here: the long-tailed digits
(benchmarks/real_bugs/_imb186.py: digits 0-4 with about 125 training rows each, 5-9 with
4), an MLP, plain cross-entropy, Adam, batches of 32, the sampler (a WeightedRandomSampler
with weight 1 / class count per row) made at the start of every epoch. Fix: rebuild the
loader with the epoch's sampler.

Measured (400 steps; on 535 held-out digits at their natural shares, the balanced accuracy
- the mean recall of the ten digits - and the mean recall of the rare digits 5-9): seed 0,
balanced accuracy 0.49 for the bug against 0.86 for the fixed twin (rare digits 0.00 against
0.80); seeds shifted by 1000, 0.50 against 0.85 (rare 0.00 against 0.73).
"""
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset, WeightedRandomSampler

import nndebug as nd
from benchmarks.real_bugs._common import mlp
from benchmarks.real_bugs._imb186 import balanced_accuracy, long_tail

TITLE = "Points for sampler"
LINK = "https://github.com/kaidic/LDAM-DRW/issues/7"
EXPECTED = ("RARE_CLASS_NEVER_PREDICTED",)
STEPS = 400
BATCH = 32


def imbalanced_dataset_sampler(labels, generator):
    """Each row drawn with probability 1 / (its class's count): balanced classes."""
    counts = torch.bincount(labels).double()
    return WeightedRandomSampler(1.0 / counts[labels], num_samples=len(labels),
                                 replacement=True, generator=generator)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = long_tail(seed=0)
    generator = torch.Generator()
    generator.manual_seed(int(torch.randint(10**6, ())))
    train_dataset = TensorDataset(x, y)
    train_sampler = None
    train_loader = DataLoader(train_dataset, batch_size=BATCH, shuffle=train_sampler is None,
                              sampler=train_sampler, generator=generator, drop_last=True)
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    done = 0
    with nd.watch(model, optimizer, **watch) as mon:
        while done < steps:
            train_sampler = imbalanced_dataset_sampler(y, generator)   # the "Resample" rule
            if fixed:
                train_loader = DataLoader(train_dataset, batch_size=BATCH,
                                          sampler=train_sampler, drop_last=True)
            # BUG when not fixed: train_loader still shuffles without the new sampler
            for xb, yb in train_loader:
                loss = criterion(model(xb), yb)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                mon.step(loss)
                done += 1
                if done == steps:
                    break
    model.eval()
    mon.held_out_balanced_accuracy = balanced_accuracy(model, x_test, y_test)
    mon.held_out_rare_recall = balanced_accuracy(model, x_test, y_test, among=range(5, 10))
    return mon

"""Training and validation come from one dataset split by two ``SubsetRandomSampler``s, and
each epoch's summed loss is divided by ``len(loader.dataset)`` - the size of the WHOLE
dataset, not of the subset the loader draws. With an 80/20 split the validation loss comes
out at a fifth of its value: it sits far below the training loss from the first epoch on, so
the curves say the model generalises better than it fits, and overfitting never shows.

Reported: "Fix incorrect normalization values for train and validation loss" -
https://github.com/udacity/deep-learning-v2-pytorch/pull/87 ("Normalizing train and
validation loss using len(train_loader.dataset) and len(valid_loader.dataset) results in
computed validation about 4x lower than the training loss, even after 20 epochs, which is
clearly a red flag. This is due to len(train_loader.dataset) and len(valid_loader.dataset)
being 5000 rather than 4000 and 1000 respectively"). Here a digits MLP, 80/20 split of the
digits by two samplers, a validation pass every epoch whose summed loss is divided by the
whole dataset's length. Fix: divide by the number of samples the loader drew
(``len(loader.sampler)``).

Measured (300 steps, seed 0): the bug reports a last validation loss of 0.029 for a true
0.147 (the fixed twin reports 0.147).
"""
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, SubsetRandomSampler, TensorDataset

import nndebug as nd
from benchmarks.real_bugs._common import classification

TITLE = "Fix incorrect normalization values for train and validation loss"
LINK = "https://github.com/udacity/deep-learning-v2-pytorch/pull/87"
EXPECTED = ("VALIDATION_LOSS_MISSCALED",)
STEPS = 300
VALID_SHARE = 0.2


def validation_loss(model, loader, fixed):
    model.eval()
    total = 0.0
    with torch.no_grad():
        for xb, yb in loader:
            total += float(F.cross_entropy(model(xb), yb)) * len(xb)
    model.train()
    # BUG (unfixed): len(loader.dataset) is the whole dataset, not the validation subset
    return total / (len(loader.sampler) if fixed else len(loader.dataset))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    dataset = TensorDataset(x, y)
    order = torch.randperm(len(x), generator=torch.Generator().manual_seed(0)).tolist()
    cut = int(VALID_SHARE * len(x))
    train_loader = DataLoader(dataset, batch_size=64, sampler=SubsetRandomSampler(
        order[cut:], generator=torch.Generator().manual_seed(1)))
    valid_loader = DataLoader(dataset, batch_size=64, sampler=SubsetRandomSampler(
        order[:cut], generator=torch.Generator().manual_seed(2)))
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    done = 0
    with nd.watch(model, optimizer, **watch) as mon:
        while done < steps:
            for xb, yb in train_loader:
                optimizer.zero_grad()
                loss = F.cross_entropy(model(xb), yb)
                loss.backward()
                optimizer.step()
                done += 1
                last = done == steps or done % len(train_loader) == 0
                mon.step(loss, val_loss=validation_loss(model, valid_loader, fixed) if last
                         else None)
                if done == steps:
                    break
    mon.extra = {"last_val_loss": round(validation_loss(model, valid_loader, fixed), 4),
                 "true_val_loss": round(validation_loss(model, valid_loader, True), 4)}
    return mon

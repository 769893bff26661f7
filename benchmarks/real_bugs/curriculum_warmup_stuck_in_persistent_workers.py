"""A curriculum (a "token warm-up") that widens what each example shows as training goes
on, set on the Dataset from the training loop - while the DataLoader runs persistent
workers. The loop calls ``dataset.set_current_epoch(epoch)`` in the main process; the
workers hold their own copies of the dataset, made when they started, and keep the
curriculum's first level for the whole run. The model trains on the warm-up's narrowest
inputs only and meets the full inputs for the first time at evaluation. Every batch is
well formed, the loss falls, and the schedule looks stepped (the main process's copy
advances).

Reported: "タグ数を徐々に増やしながら学習するオプションの追加、persistent_workersに関する軽微なバグ修正"
(adding a token warm-up option; a small persistent_workers fix) -
https://github.com/kohya-ss/sd-scripts/pull/322 (the author printed the number of caption
tags inside ``process_caption()`` and saw it never change although ``set_current_step()``
was being called; with persistent workers off it changed at each epoch boundary: the
DataLoader's workers copy the dataset, so the loop's calls reach a different object. The
same held for ``caption_dropout_every_n_epochs``; the fix turns persistent workers off
when such per-epoch features are used). Here the digits: each image's 8 pixel rows play
the caption's tags, the warm-up shows the first 2 rows (the rest zero) and one more each
epoch up to all 8; a DataLoader with two workers (batch 64), an MLP under Adam, 24 epochs.
Fix: ``persistent_workers=False``, so each epoch's workers copy the current level.

Measured (held-out accuracy on 497 digits never trained on, all rows shown): seed 0,
0.48 for the bug against 0.90 for the fixed twin; seeds shifted by 1000, 0.52 against
0.90.
"""
import torch
from torch.nn import functional as F
from torch.utils.data import DataLoader, Dataset

import nndebug as nd
from benchmarks.real_bugs._dp157 import accuracy, digits_split, mlp

TITLE = ("タグ数を徐々に増やしながら学習するオプションの追加、persistent_workersに関する"
         "軽微なバグ修正")
LINK = "https://github.com/kohya-ss/sd-scripts/pull/322"
EXPECTED = ("CURRICULUM_NEVER_REACHES_WORKERS",)
EPOCHS, BATCH = 24, 64
ROWS, FIRST_ROWS = 8, 2
STEPS = EPOCHS * 18             # 1,300 training digits: 20 batches an epoch, 18 used


class RowWarmupDataset(Dataset):
    """Digits with only the first ``visible`` of their 8 pixel rows shown."""

    def __init__(self, x, y):
        self.x, self.y = x, y
        self.visible = FIRST_ROWS

    def set_current_epoch(self, epoch):
        self.visible = min(ROWS, FIRST_ROWS + epoch)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, index):
        image = self.x[index].view(ROWS, ROWS).clone()
        image[self.visible:] = 0.0
        return image.view(-1), self.y[index]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = digits_split()
    data = RowWarmupDataset(x, y)
    # BUG (fixed=False): persistent workers keep the dataset copy of epoch 0
    loader = DataLoader(data, batch_size=BATCH, shuffle=True, num_workers=2,
                        persistent_workers=not fixed,
                        generator=torch.Generator().manual_seed(
                            int(torch.randint(1 << 30, (1,)))))
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    done, epoch = 0, 0
    with nd.watch(model, optimizer, **watch) as mon:
        while done < steps:
            data.set_current_epoch(epoch)
            for batch, (xb, yb) in enumerate(loader):
                if batch == steps // EPOCHS:
                    break
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
    return mon

"""A Dataset whose ``__getitem__`` returns each sample's features as a plain Python list.
``default_collate`` does not turn a batch of lists into a (batch, features) tensor: it
"transposes" them, giving one tensor per list position, each holding that feature across
the batch. The training loop stacks that list with ``torch.stack(batch["data"])`` - shape
(features, batch) - and, because the batch size equals the number of features (64), the
result has exactly the shape the model expects. Each "sample" the model sees is one pixel
position across 64 different digits, paired with one digit's label: the model learns next to
nothing about the digits, and no error is raised anywhere.

Reported: "default_collate: if elem in batch is list, the whole batch would be transpose?"
- https://github.com/pytorch/pytorch/issues/50272 (a dataset returning
``{'data': list_of_floats, 'target': int}``: the loader's batch holds ``data`` as a list of
one tensor per feature, each of batch length, not one row per sample; a maintainer
answered that this is intended: default_collate combines each position of a sequence
across the batch). A sample meant as one row has to come back as a tensor, or be stacked
along the right axis after collation. Here the digits' 64 pixels come back from
``__getitem__`` as a list, a shuffled ``DataLoader`` with batch 64 collates them, and an
MLP under Adam trains on ``torch.stack(batch["data"])``. Fix:
``torch.stack(batch["data"], dim=1)`` - one row per sample.

Measured (held-out accuracy on 497 digits never trained on, after 300 steps): seed 0: 0.193
with the bug against 0.901 for the fixed twin; seeds shifted by 1000: 0.233 against 0.920.
"""
import torch
from torch.nn import functional as F
from torch.utils.data import DataLoader, Dataset

import nndebug as nd
from benchmarks.real_bugs._dp157 import accuracy, digits_split, loader_generator, mlp

TITLE = "default_collate: if elem in batch is list, the whole batch would be transpose?"
LINK = "https://github.com/pytorch/pytorch/issues/50272"
EXPECTED = ("BATCH_AXIS_TRANSPOSED", "LOSS_AT_CHANCE", "LABELS_UNRELATED_TO_INPUTS")
STEPS = 300
BATCH = 64                     # as many samples per batch as pixels per sample


class ListDataset(Dataset):
    def __init__(self, x, y):
        self.data = x.tolist()
        self.target = y.tolist()

    def __len__(self):
        return len(self.data)

    def __getitem__(self, index):
        return {"data": self.data[index], "target": self.target[index]}


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = digits_split()
    loader = DataLoader(ListDataset(x, y), batch_size=BATCH, shuffle=True, drop_last=True,
                        generator=loader_generator(1))
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    done = 0
    with nd.watch(model, optimizer, **watch) as mon:
        while done < steps:
            for batch in loader:
                if fixed:        # the fix: one row per sample
                    inputs = torch.stack(batch["data"], dim=1).float()
                else:            # BUG: (features, batch) - fits the model as batch 64 = 64 px
                    inputs = torch.stack(batch["data"]).float()
                optimizer.zero_grad()
                loss = F.cross_entropy(model(inputs), batch["target"])
                loss.backward()
                optimizer.step()
                mon.step(loss)
                done += 1
                if done == steps:
                    break
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    return mon

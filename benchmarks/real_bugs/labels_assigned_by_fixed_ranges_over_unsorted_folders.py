"""The images are read class folder by class folder in the order `os.listdir` returns the
folders, and the labels are then assigned by hard-coded index ranges written for the
alphabetical order (the first 60 rows are cats, the next 60 dogs, ...): `os.listdir` lists
['cats', 'horses', 'dogs', 'humans'], so the "dogs" range holds horses and the dogs fall
in the "horses" range - a third of the horses are trained as dogs and every dog as a horse.

Reported: "Mislabelling" -
https://github.com/anujshah1003/own_data_cnn_implementation_keras/issues/4 ("The
os.listdir(data_path + '/' + dataset) doesn't seems to list the directories alphabetically
... the directories are read as ['cats', 'horses', 'dogs', 'humans']. Assigning the labels
in ascending order ... would likely to create mismatch between the assigned labels and the
actual labels. The way around this is to sort"; the tutorial sets `labels[0:102]=0`,
`labels[102:204]=1`, `labels[204:606]=2`, `labels[606:]=3` after the folder loop). Here four
digit classes stand for the four folders (60, 60, 170 and 120 images), shuffled and split
80/20 as in the tutorial, a small CNN trained with RMSprop. Fix: read the folders in
sorted order (or take each image's label from its folder while reading it).

Measured harm (accuracy against the folder each held-out image came from, 82 held-out
images): 0.79 vs 0.96 at seed 0; seeds + 1000: 0.84 vs 1.00.
"""
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import nndebug as nd
from benchmarks.real_bugs._beginner_dataset import accuracy, cnn, record, shuffled_digits

TITLE = "Mislabelling"
LINK = "https://github.com/anujshah1003/own_data_cnn_implementation_keras/issues/4"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 250
NAMES = ["cats", "dogs", "horses", "humans"]      # the label order the ranges are written for
COUNTS = {"cats": 60, "dogs": 60, "horses": 170, "humans": 120}
LISTED = ["cats", "horses", "dogs", "humans"]     # the order os.listdir gave the reporter


def folders():
    """{folder name: its images}: digit k stands for NAMES[k]."""
    x, y = shuffled_digits()
    return {name: x[y == k][:COUNTS[name]] for k, name in enumerate(NAMES)}


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    data = folders()
    listed = sorted(LISTED) if fixed else LISTED    # BUG when not fixed: listing order
    img_data = torch.cat([data[name] for name in listed])
    truth = torch.cat([torch.full((len(data[name]),), NAMES.index(name)) for name in listed])
    labels = torch.empty(len(img_data), dtype=torch.int64)
    labels[0:60] = 0            # cats
    labels[60:120] = 1          # dogs
    labels[120:290] = 2         # horses
    labels[290:] = 3            # humans
    order = torch.randperm(len(img_data))           # shuffle, then an 80/20 split
    img_data, labels, truth = img_data[order], labels[order], truth[order]
    split = int(0.8 * len(img_data))
    train = TensorDataset(img_data[:split], labels[:split])
    loader = DataLoader(train, batch_size=16, shuffle=True)
    model = cnn(classes=len(NAMES))
    optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    done = 0
    with nd.watch(model, optimizer, **watch) as mon:
        while done < steps:
            for images, targets in loader:
                optimizer.zero_grad()
                loss = loss_fn(model(images), targets)
                loss.backward()
                optimizer.step()
                mon.step(loss)
                done += 1
                if done == steps:
                    break
    record(__name__, accuracy(model, img_data[split:], truth[split:]))
    return mon

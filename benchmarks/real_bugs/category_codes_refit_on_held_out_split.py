"""A categorical column label-encoded separately on each split: the training rows' product
names are mapped to integer codes by a LabelEncoder fitted on the training rows, and the
held-out rows by a second LabelEncoder fitted on the held-out rows. Each encoder numbers
the names it saw in sorted order, so as soon as one product that the training rows have is
absent from the held-out rows, every product sorted after it gets a code one lower there:
the held-out rows look up the embedding row of a DIFFERENT product. Training itself is
untouched and learns well; only the evaluation (and any deployment using a refitted
encoder) reads the wrong embeddings, so the model looks worse than it is - and nothing
errors, since the shifted codes are still valid indices.

Reported: "Different Label Encoder values on Training and Test set is bad?" -
https://stackoverflow.com/questions/53735576 (a product column with thousands of values
label-encoded on the training and the test set, the asker afraid that the training set's
{apple: 1, banana: 2, ...} becomes {banana: 1, orange: 2, ...} on the test set; the
answers: it is wrong - the mapping must be learnt once, on the training data, and only
applied to the test data, with unseen values handled explicitly).
Here a synthetic table: 60 products (frequencies falling as 1/rank**1.3, so rare ones are
missing from a split) whose own effect drives a binary label, plus 4 numeric features;
3000 training rows, 1000 held out. An embedding of the product code (8 wide) and the
numbers feed an MLP; Adam 0.01, batches of 64, a validation loss each 46 steps (one
epoch). Bug: the held-out codes come from an encoder refitted on the held-out rows; fix:
the training rows' encoder is applied to them.

Measured (held-out accuracy): seed 0: 0.745 with the bug, 0.800 fixed; seeds shifted by
1000: 0.647 against 0.781 (the training runs are the same; the bug's held-out codes
differ from the training encoder's on 90% / 87% of the held-out rows).
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._tab152 import categorical_table

TITLE = "Different Label Encoder values on Training and Test set is bad?"
LINK = "https://stackoverflow.com/questions/53735576"
EXPECTED = ("VALIDATION_CATEGORY_CODES_REMAPPED",)
STEPS = 470
LEVELS, TRAIN, HELD_OUT = 60, 3000, 1000


class TabularNet(nn.Module):
    def __init__(self, levels, numbers=4, width=8):
        super().__init__()
        self.product = nn.Embedding(levels, width)
        self.mlp = nn.Sequential(nn.Linear(width + numbers, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, codes, numbers):
        return self.mlp(torch.cat([self.product(codes), numbers], 1)).squeeze(-1)


def label_encode(names):
    """What LabelEncoder.fit_transform does: each distinct name's rank in sorted order."""
    vocabulary = np.unique(names)
    return {name: code for code, name in enumerate(vocabulary)}


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    names, x, y = categorical_table(rng, TRAIN + HELD_OUT, LEVELS, effect=1.5, skew=1.3)
    names = names.numpy()
    train_map = label_encode(names[:TRAIN])
    # held-out products never seen in training share one extra "unknown" row
    unknown = len(train_map)
    codes = torch.tensor([train_map[n] for n in names[:TRAIN]])
    if fixed:        # the fix: the training encoder, applied to the held-out rows
        held_codes = torch.tensor([train_map.get(n, unknown) for n in names[TRAIN:]])
    else:            # BUG: a second encoder fitted on the held-out rows themselves
        held_map = label_encode(names[TRAIN:])
        held_codes = torch.tensor([held_map[n] for n in names[TRAIN:]])
    x_train, y_train, x_held, y_held = x[:TRAIN], y[:TRAIN], x[TRAIN:], y[TRAIN:]
    model = TabularNet(unknown + 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    loss_fn = nn.BCEWithLogitsLoss()
    per_epoch = TRAIN // 64
    with nd.watch(model, optimizer, **watch) as mon:
        for step, index in enumerate(index_batches(TRAIN, steps, 64)):
            optimizer.zero_grad()
            loss = loss_fn(model(codes[index], x_train[index]), y_train[index])
            loss.backward()
            optimizer.step()
            val_loss = None
            if (step + 1) % per_epoch == 0:
                model.eval()
                with torch.no_grad():
                    val_loss = loss_fn(model(held_codes, x_held), y_held)
                model.train()
            mon.step(loss, val_loss=val_loss)
    with torch.no_grad():
        predicted = model(held_codes, x_held) > 0
    mon.held_out_accuracy = float((predicted == (y_held > 0.5)).float().mean())
    truth = torch.tensor([train_map.get(n, unknown) for n in names[TRAIN:]])
    mon.held_out_codes_remapped = float((truth != held_codes).float().mean())
    return mon

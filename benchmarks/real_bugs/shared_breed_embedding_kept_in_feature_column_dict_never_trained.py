"""Two categorical columns with one vocabulary (a pet's first and second breed) share one
embedding table, built by a feature-column helper that returns {column: table}; the model
keeps that plain dict as an attribute, so the shared table is never registered:
model.parameters() and so the optimizer do not hold it, and the breed vectors stay at
their random initialisation for the whole run. The MLP learns what it can from fixed
random breed vectors; the per-column embedding of the other categorical column trains.

Reported: "shared_embeddings columns BUG: not updated when BP in Estimator which will
cause lower metrics in model" - https://github.com/tensorflow/tensorflow/issues/47037
(on the petfinder-mini table of TensorFlow's feature-column tutorial: the weights of
tf.feature_column.shared_embeddings columns are not updated during training, unlike the
same columns given separate embedding_column tables, and the model's metrics are lower).
Here a petfinder-like table drawn at random (Breed1 and Breed2 from 40 breeds with their
own effect on adoption, the pet type, and age and fee as numbers), the shared 4-wide
breed table plus a type embedding and an MLP, BCEWithLogitsLoss, Adam 0.01, batches of
64, a validation loss each epoch. Fix: register the shared table (nn.ModuleDict).

Measured harm (held-out accuracy on 1000 rows after 300 steps): 0.80 vs 0.89 with the
fix; seeds + 1000: 0.80 vs 0.90.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._tabular_embeddings import held_out_accuracy

TITLE = ("shared_embeddings columns BUG: not updated when BP in Estimator which will cause "
         "lower metrics in model")
LINK = "https://github.com/tensorflow/tensorflow/issues/47037"
EXPECTED = ("UNREGISTERED_PARAMETERS",)
STEPS = 300
BREEDS, TYPES, TRAIN, HELD_OUT = 40, 2, 3000, 1000


def shared_embeddings(columns, vocabulary_size, dimension):
    """One table for several columns of one vocabulary: {column: table}."""
    table = nn.Embedding(vocabulary_size, dimension)
    return {column: table for column in columns}


class PetNet(nn.Module):
    def __init__(self, fixed=False, width=4):
        super().__init__()
        breeds = shared_embeddings(("breed1", "breed2"), BREEDS, width)
        # BUG when not fixed: a plain dict attribute - its table is not registered
        self.breeds = nn.ModuleDict(breeds) if fixed else breeds
        self.pet_type = nn.Embedding(TYPES, 2)
        self.mlp = nn.Sequential(nn.Linear(2 * width + 2 + 2, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, codes, numbers):
        vectors = [self.breeds["breed1"](codes[:, 0]), self.breeds["breed2"](codes[:, 1]),
                   self.pet_type(codes[:, 2])]
        return self.mlp(torch.cat(vectors + [numbers], 1)).squeeze(-1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    rows = TRAIN + HELD_OUT
    breed_effect = rng.normal(size=BREEDS)
    breed1 = rng.integers(0, BREEDS, rows)
    breed2 = np.where(rng.random(rows) < 0.5, breed1, rng.integers(0, BREEDS, rows))
    pet_type = rng.integers(0, TYPES, rows)
    numbers = rng.normal(size=(rows, 2))                 # age and fee, standardised
    logit = breed_effect[breed1] + 0.6 * breed_effect[breed2] + 0.5 * pet_type \
        + numbers @ np.array([-0.6, -0.3]) + 0.4 * rng.normal(size=rows)
    y = torch.tensor(logit > np.median(logit), dtype=torch.float32)
    codes = torch.from_numpy(np.stack([breed1, breed2, pet_type], 1)).long()
    x = torch.tensor(numbers, dtype=torch.float32)
    model = PetNet(fixed=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    loss_fn = nn.BCEWithLogitsLoss()
    held = slice(TRAIN, None)
    per_epoch = TRAIN // 64
    with nd.watch(model, optimizer, **watch) as mon:
        for step, index in enumerate(index_batches(TRAIN, steps, 64)):
            optimizer.zero_grad()
            loss = loss_fn(model(codes[index], x[index]), y[index])
            loss.backward()
            optimizer.step()
            val_loss = None
            if (step + 1) % per_epoch == 0:
                with torch.no_grad():
                    val_loss = loss_fn(model(codes[held], x[held]), y[held])
            mon.step(loss, val_loss=val_loss)
    mon.held_out_accuracy = held_out_accuracy(model, codes[held], x[held], y=y[held])
    return mon

"""An entity-embedding regression on a house table: the categorical Neighborhood goes
through an embedding and the numeric living area is standardised - but only on the
training rows (X_train['Gr Liv Area'] = StandardScaler().fit_transform(...)); the test
rows keep their raw square feet. The network learnt on areas of about -2..3 and is
evaluated on areas of about 500..4000: every held-out prediction is far off, while the
training loss looks fine.

Reported: "Confusion about Entity Embeddings of Categorical Variables - Working Example" -
https://datascience.stackexchange.com/questions/42730 (the asker cannot make an entity
embedding work on the Ames housing table with only Neighborhood and Gr Liv Area: "I also
split the data into train, and test and normalize the numerical variables", and the code
shown standardises X_train['Gr Liv Area'] with StandardScaler().fit_transform while
X_test is never transformed). Here an Ames-like table drawn at random (28 neighbourhoods
with their own price level, living areas around 1500 sq ft, 2000 training and 900 test
rows), the log price standardised on the training rows in both runs (the question
regresses raw dollars; here only the test column differs), an 8-wide Neighborhood
embedding and the area into an MLP, MSELoss, Adam 0.01, batches of 64, a validation loss
each epoch on the test rows. Fix: transform X_test with the scaler fitted on X_train.

Measured harm (held-out R^2 of the log price after 250 steps): -1.8e5 vs 0.92 with the
fix; seeds + 1000: -1.5e5 vs 0.93.
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import index_batches

TITLE = "Confusion about Entity Embeddings of Categorical Variables - Working Example"
LINK = "https://datascience.stackexchange.com/questions/42730"
EXPECTED = ("VALIDATION_INPUTS_RESCALED",)
STEPS = 250
NEIGHBORHOODS, TRAIN, TEST = 28, 2000, 900


class EntityEmbeddingNet(nn.Module):
    def __init__(self, levels, width=8):
        super().__init__()
        self.neighborhood = nn.Embedding(levels, width)
        self.mlp = nn.Sequential(nn.Linear(width + 1, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, neighborhood, area):
        return self.mlp(torch.cat([self.neighborhood(neighborhood), area], 1)).squeeze(-1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    rows = TRAIN + TEST
    neighborhood = rng.integers(0, NEIGHBORHOODS, rows)
    level = rng.normal(scale=0.35, size=NEIGHBORHOODS)
    area = np.clip(rng.lognormal(np.log(1450), 0.33, rows), 400, 5000)
    log_price = 12.0 + level[neighborhood] + 0.55 * np.log(area / 1450) \
        + rng.normal(scale=0.1, size=rows)
    y = (log_price - log_price[:TRAIN].mean()) / log_price[:TRAIN].std()
    mean, std = area[:TRAIN].mean(), area[:TRAIN].std()
    area_train = (area[:TRAIN] - mean) / std               # StandardScaler().fit_transform
    area_test = (area[TRAIN:] - mean) / std if fixed else area[TRAIN:]  # BUG: raw sq ft
    code = torch.from_numpy(neighborhood).long()
    a_train = torch.tensor(area_train, dtype=torch.float32)[:, None]
    a_test = torch.tensor(area_test, dtype=torch.float32)[:, None]
    y = torch.tensor(y, dtype=torch.float32)
    c_train, c_test, y_train, y_test = code[:TRAIN], code[TRAIN:], y[:TRAIN], y[TRAIN:]
    model = EntityEmbeddingNet(NEIGHBORHOODS)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    loss_fn = nn.MSELoss()
    per_epoch = TRAIN // 64
    with nd.watch(model, optimizer, **watch) as mon:
        for step, index in enumerate(index_batches(TRAIN, steps, 64)):
            optimizer.zero_grad()
            loss = loss_fn(model(c_train[index], a_train[index]), y_train[index])
            loss.backward()
            optimizer.step()
            val_loss = None
            if (step + 1) % per_epoch == 0:
                with torch.no_grad():
                    val_loss = loss_fn(model(c_test, a_test), y_test)
            mon.step(loss, val_loss=val_loss)
    with torch.no_grad():
        residual = ((model(c_test, a_test) - y_test) ** 2).mean()
    mon.held_out_r2 = float(1 - residual / y_test.var())
    return mon

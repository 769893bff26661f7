"""The categorical columns are label-encoded with one LabelEncoder fitted on the training
table and another fitted on the test table (`test.apply(LabelEncoder().fit_transform)`). A
LabelEncoder numbers the categories it sees in sorted order, and the test table lacks a few
rare categories, so every category sorted after a missing one gets a code one lower in
the test table than in training: the model reads the test rows' education, occupation and
country as their neighbours in the alphabet. Training is unaffected; the test accuracy
falls.

Reported: "Benchmark Fix for RandomForest" -
https://github.com/sayakpaul/Benchmarking-and-MLI-experiments-on-the-Adult-dataset/issues/1
("We use the LabelEncoder on our training and testing data separately, which will cause
index mismatch ... train_preprocessed = train.apply(LabelEncoder().fit_transform);
test_preprocessed = test.apply(LabelEncoder().fit_transform) ... With this transformation,
I am able to get 0.8526 accuracy"). Here an Adult-like table drawn at random (education,
occupation and native country, whose rarest early-alphabet category - like the Adult test
file's missing "Holand-Netherlands" - has no test row, plus two numeric columns), and the
usual first tabular network in PyTorch: one embedding per categorical column, an MLP over
them, CrossEntropyLoss on the two income classes, Adam, batches of 64. Fix: fit the
encoders on the training table and only transform the test table with them.

Measured harm (test accuracy on 600 rows after 300 steps): 0.74 vs 0.90 with the fix;
seeds + 1000: 0.59 vs 0.91.
"""
import numpy as np
import torch
from sklearn.preprocessing import LabelEncoder
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._beginner_multiclass import predicted_accuracy, record
from benchmarks.real_bugs._common import index_batches

TITLE = "Benchmark Fix for RandomForest"
LINK = "https://github.com/sayakpaul/Benchmarking-and-MLI-experiments-on-the-Adult-dataset/issues/1"
EXPECTED = ("VALIDATION_COLUMNS_REORDERED",)   # closest code: the held-out table's columns
#                                                 do not mean what training's columns meant
STEPS = 300
COLUMNS = {
    "education": ["10th", "11th", "12th", "1st-4th", "5th-6th", "7th-8th", "9th",
                  "Assoc-acdm", "Assoc-voc", "Bachelors", "Doctorate", "HS-grad",
                  "Masters", "Preschool", "Prof-school", "Some-college"],
    "occupation": ["Adm-clerical", "Armed-Forces", "Craft-repair", "Exec-managerial",
                   "Farming-fishing", "Handlers-cleaners", "Machine-op-inspct",
                   "Other-service", "Priv-house-serv", "Prof-specialty", "Protective-serv",
                   "Sales", "Tech-support", "Transport-moving"],
    "native_country": ["Canada", "China", "Cuba", "England", "Germany", "Holand-Netherlands",
                       "India", "Italy", "Jamaica", "Mexico", "Philippines", "Poland",
                       "Puerto-Rico", "South", "United-States", "Vietnam"],
}
RARE = {"education": "1st-4th", "occupation": "Armed-Forces",
        "native_country": "Holand-Netherlands"}      # absent from the test table


def adult_like(rng, rows, effects, without_rare):
    """A table of category names and two numeric columns, and its income class."""
    table, logit = {}, np.zeros(rows)
    for column, levels in COLUMNS.items():
        weights = np.where(np.array(levels) == RARE[column], 0.01, 1.0)
        if without_rare:
            weights = np.where(np.array(levels) == RARE[column], 0.0, weights)
        drawn = rng.choice(len(levels), size=rows, p=weights / weights.sum())
        table[column] = np.array(levels)[drawn]
        logit += effects[column][drawn]
    numeric = rng.normal(size=(rows, 2)).astype(np.float32)
    logit += numeric @ np.array([0.8, 0.5]) + rng.normal(scale=0.5, size=rows)
    return table, numeric, (logit > 0.3).astype(np.int64)


class TabularNet(nn.Module):
    def __init__(self, sizes, numeric=2, dim=4, hidden=64):
        super().__init__()
        self.embeddings = nn.ModuleList(nn.Embedding(n, dim) for n in sizes)
        self.mlp = nn.Sequential(nn.Linear(dim * len(sizes) + numeric, hidden), nn.ReLU(),
                                 nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 2))

    def forward(self, codes, numeric):
        parts = [e(codes[:, i]) for i, e in enumerate(self.embeddings)]
        return self.mlp(torch.cat(parts + [numeric], dim=1))


def encode(train, test, fixed):
    train_codes, test_codes = [], []
    for column in COLUMNS:
        encoder = LabelEncoder()
        train_codes.append(encoder.fit_transform(train[column]))
        if fixed:
            test_codes.append(encoder.transform(test[column]))
        else:
            test_codes.append(LabelEncoder().fit_transform(test[column]))   # BUG: refitted
    return np.stack(train_codes, 1), np.stack(test_codes, 1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    effects = {c: rng.normal(scale=1.5, size=len(levels)) for c, levels in COLUMNS.items()}
    train, num_train, y_train = adult_like(rng, 2000, effects, without_rare=False)
    test, num_test, y_test = adult_like(rng, 600, effects, without_rare=True)
    codes_train, codes_test = encode(train, test, fixed)
    cat_train, cat_test = torch.from_numpy(codes_train), torch.from_numpy(codes_test)
    cont_train, cont_test = torch.from_numpy(num_train), torch.from_numpy(num_test)
    y_train, y_test = torch.from_numpy(y_train), torch.from_numpy(y_test)
    model = TabularNet([len(levels) for levels in COLUMNS.values()])
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in index_batches(len(y_train), steps, batch_size=64,
                                  seed=int(torch.randint(10**6, ()))):
            optimizer.zero_grad()
            loss = loss_fn(model(cat_train[rows], cont_train[rows]), y_train[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        predictions = model(cat_test, cont_test).argmax(1)
    record(__name__, predicted_accuracy(predictions, y_test))
    return mon

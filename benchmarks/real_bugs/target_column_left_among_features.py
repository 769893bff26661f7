"""The feature matrix is every column of the table but the first, and the target column is
one of them: the label is fed to the network as an input. Training and the random test
split both look perfect (the test rows carry their label too), but the network has learnt
to read the answer off its input; on new rows, whose label is not known yet, it is a poor
classifier.

Reported: "Binary Classification Results" - https://github.com/dotnet/machinelearning/issues/737
(results too good to be true; the maintainer explains label leaking, "a feature which is
actually the label in disguise ... The model produced by learning on this dataset, however,
is worthless"; the reporter: "Yes, it looks like I was incorrectly including the target
class as a feature. Now I am looking at the results and am surprised to see how poor the
results are"). Here a table of the 64 digit pixels and a 0/1 target column ("the digit is 5
or more"), a logistic-output MLP trained with BCE, an 80/20 random split of the labelled
table; new rows come as the table does before they are labelled: target column 0. Fix:
drop the target column from the features.

Measured (200 steps): accuracy on the held-out labelled rows 0.967 vs 0.88 (the leak reads
as a better model); on the same rows as new, unlabelled rows (target column 0): 0.808 vs
0.88 (fixed); seeds + 1000: 0.783 vs 0.864 (labelled: 0.983 vs 0.864).
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._data_splits import accuracy, minibatches, record, shuffled_digits

TITLE = "Binary Classification Results"
LINK = "https://github.com/dotnet/machinelearning/issues/737"
EXPECTED = ("TARGETS_IN_INPUTS", "FEATURE_HOLDS_TARGET_VALUES")
STEPS = 200
TEST_SHARE = 0.2


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    pixels, digit = shuffled_digits()
    target = (digit >= 5).float()
    # the table as read from the file: an id column, 64 pixel columns, the target column
    table = torch.cat([torch.arange(len(pixels)).float()[:, None], pixels, target[:, None]],
                      dim=1)
    # BUG (unfixed): "every column but the id" keeps the target column among the features
    features = table[:, 1:-1] if fixed else table[:, 1:]
    labels = table[:, -1]
    n_test = int(TEST_SHARE * len(table))
    train_x, train_y = features[n_test:], labels[n_test:]
    test_x, test_y = features[:n_test], labels[:n_test]
    new_x = test_x.clone()                  # the same rows before anyone labelled them
    if not fixed:
        new_x[:, -1] = 0.0
    model = nn.Sequential(nn.Linear(features.shape[1], 32), nn.ReLU(), nn.Linear(32, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    done = 0
    with nd.watch(model, optimizer, **watch) as mon:
        while done < steps:
            for index in minibatches(len(train_x), 32):
                optimizer.zero_grad()
                loss = F.binary_cross_entropy_with_logits(model(train_x[index]).squeeze(1),
                                                          train_y[index])
                loss.backward()
                optimizer.step()
                mon.step(loss)
                done += 1
                if done == steps:
                    break
    mon.extra = {"test_accuracy": accuracy(model, test_x, test_y),
                 "new_rows_accuracy": record(__name__, accuracy(model, new_x, test_y))}
    return mon

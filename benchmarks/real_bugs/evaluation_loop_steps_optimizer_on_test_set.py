"""The evaluation loop computes the test loss, calls loss.backward() and optimizer.step():
the model is trained on the test set before its test accuracy is reported, which then
flatters it.

Reported: "WS07: Evaluation loop trains on the test set" -
https://github.com/Graylab/DL4Proteins-notebooks/issues/11 ("The evaluation loop calls
loss.backward() and optimizer.step() on the test set"; model.eval() "does not prevent
parameter updates", so the model "is effectively trained on the test data before its
accuracy is reported"). Here a digits MLP trained with Adam on 1,097 examples for 150
steps, then the notebook's evaluation loop: 10 passes in eval mode over 400 test examples
(batches of 50), reporting the last pass's accuracy; 300 further examples, never touched,
measure the true accuracy (one random split, the same in both runs).
Measured (seed 0): reported test accuracy 94.5% against 90.3% on the untouched rows
(bug; 80 optimizer steps taken on the test rows), 92.0% against 88.7% (fixed): the
reported number comes from a model fitted to the rows it is scored on (here the gap grows
by about one point only: each batch is scored before its own step). Fix: evaluate under torch.no_grad(), without
backward() or step().
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification, mlp

TITLE = "WS07: Evaluation loop trains on the test set"
LINK = "https://github.com/Graylab/DL4Proteins-notebooks/issues/11"
EXPECTED = ("OPTIMIZER_STEPPED_DURING_EVALUATION",)
STEPS = 150
EVAL_EPOCHS = 10     # the notebook's evaluation loop runs 10 epochs
TEST, UNTOUCHED = 400, 300


def evaluate(model, optimizer, loss_fn, x_test, y_test, fixed):
    """The report's evaluation loop (EVAL_EPOCHS passes over the test set); returns the
    accuracy of its last pass, the one it reports."""
    model.eval()
    for _ in range(EVAL_EPOCHS):
        correct = 0
        for start in range(0, len(x_test), 50):
            xb, yb = x_test[start:start + 50], y_test[start:start + 50]
            if fixed:
                with torch.no_grad():
                    out = model(xb)
            else:
                optimizer.zero_grad()
                out = model(xb)
                loss = loss_fn(out, yb)
                loss.backward()              # BUG when not fixed: trains on the test set
                optimizer.step()
            correct += (out.argmax(1) == yb).sum().item()
    model.train()
    return correct / len(x_test)


def split_order(n):
    """A fixed random order of the examples, so test and untouched rows are alike."""
    return torch.randperm(n, generator=torch.Generator().manual_seed(12345))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    x, y = x[split_order(len(x))], y[split_order(len(x))]   # one random split, same both runs
    x_test, y_test = x[:TEST], y[:TEST]
    x_train, y_train = x[TEST:-UNTOUCHED], y[TEST:-UNTOUCHED]
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x_train, y_train, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
        mon.reported_test_accuracy = evaluate(model, optimizer, loss_fn, x_test, y_test,
                                              fixed)
    return mon

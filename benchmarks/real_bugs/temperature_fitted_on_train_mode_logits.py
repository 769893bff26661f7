"""Temperature scaling fitted on validation logits collected with the model still in
training mode: the classifier has batch norm and dropout, and the temperature is fitted
straight after the training loop without ``model.eval()``. Each validation batch is then
normalised with its own statistics (and the validation loader, unshuffled, reads the rows
class by class, so a batch holds one or two classes whose shared features batch norm
subtracts) and dropout stays on: those logits are far more often wrong than the ones the
deployed (eval-mode) model produces, the NLL-optimal temperature for them is much too high,
and applied to the real test logits it flattens good predictions: the "calibrated" model is
badly under-confident and its NLL is three times what it was before calibration. No error;
training and its eval-mode validation are healthy.

Reported: "my simple correction for reproducing good performance" -
https://github.com/gpleiss/temperature_scaling/issues/20 (the reporter's first correction
was to call ``model.eval()`` before ``set_temperature``: without it the fitted temperature
came out at 1386304 and the NLL rose from 2.44 to 4.61; with it, 5.8 and 1.57). Here a
digits MLP with batch norm and dropout 0.3, trained with Adam and validated in eval mode
every epoch, then calibrated with one temperature fitted by LBFGS on 400 validation rows
(read in batches of 50 in class order, as an unshuffled folder-per-class loader gives them)
and scored on 797 test rows.
Fix: ``model.eval()`` before collecting the validation logits.

Measured (300 steps, seed 0): fitted temperature 3.13 for the bug, 1.04 for the twin;
test NLL after scaling 0.385 for the bug (0.119 before it) against 0.126 for the twin (0.125
before it), test ECE 0.245 against 0.015. The bug's train-mode forwards also fold the
class-ordered validation batches into batch norm's running averages.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._calibration_digits import (expected_calibration_error, split,
                                                      train_with_validation)

TITLE = "my simple correction for reproducing good performance"
LINK = "https://github.com/gpleiss/temperature_scaling/issues/20"
EXPECTED = ("VALIDATION_IN_TRAIN_MODE",)
STEPS = 300
DROPOUT = 0.3
VAL_BATCH = 50     # [design] the calibration loader's batch size (unshuffled, class order)


def fit_temperature(logits, labels):
    """One temperature by LBFGS on the NLL (the reference implementation's recipe)."""
    log_t = torch.zeros(1, requires_grad=True)     # T = exp(log_t) stays positive
    lbfgs = torch.optim.LBFGS([log_t], lr=0.1, max_iter=200)

    def closure():
        lbfgs.zero_grad()
        loss = F.cross_entropy(logits / log_t.exp(), labels)
        loss.backward()
        return loss

    lbfgs.step(closure)
    return float(log_t.detach().exp())


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (x_train, y_train), (x_val, y_val), (x_test, y_test) = split(seed=0)
    in_class_order = torch.argsort(y_val, stable=True)     # a folder-per-class loader
    x_val, y_val = x_val[in_class_order], y_val[in_class_order]
    model = nn.Sequential(nn.Linear(64, 128), nn.BatchNorm1d(128), nn.ReLU(),
                          nn.Dropout(DROPOUT), nn.Linear(128, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        train_with_validation(mon, model, optimizer, (x_train, y_train), (x_val, y_val), steps)
        # calibration: collect the validation logits, fit one temperature
        if fixed:
            model.eval()
        # BUG (unfixed): still in training mode from the loop (batch norm, dropout)
        with torch.no_grad():
            val_logits = torch.cat([model(x_val[i:i + VAL_BATCH])
                                    for i in range(0, len(x_val), VAL_BATCH)])
    temperature = fit_temperature(val_logits, y_val)
    model.eval()
    with torch.no_grad():
        test_logits = model(x_test)
    before = F.cross_entropy(test_logits, y_test)
    after = F.cross_entropy(test_logits / temperature, y_test)
    mon.extra = {"temperature": round(temperature, 2),
                 "test_nll_before": round(float(before), 3),
                 "test_nll_after": round(float(after), 3),
                 "test_ece_after": round(expected_calibration_error(
                     F.softmax(test_logits / temperature, 1), y_test), 3)}
    return mon

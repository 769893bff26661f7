"""Temperature scaling fitted on the training rows' logits instead of held-out ones. The
network has (nearly) memorised its training rows, so on them its logits are confidently
right and the NLL-optimal temperature there is below 1: scaling SHARPENS a model that is
already over-confident on new data. The held-out NLL gets worse after "calibration", the
accuracy is unchanged and nothing errors; training and its validation curve are healthy.

Reported: "Why calibration parameter T is learned on validation set and not training set?"
- https://github.com/gpleiss/temperature_scaling/issues/37 (the poster proposed to train
and calibrate on the training set, as a scikit-learn example seemed to do, instead of
fitting T on the validation set as the README prescribes; the thread has no answer, but a
temperature fitted on rows the network was trained on sees its over-fitted confidences, not
the ones it has on new data, and the README's recipe - fit T on held-out rows - is the fix). Here a digits MLP (no dropout) trained long
enough to fit its 600 training rows, validated in eval mode every epoch; one temperature
(T = exp(s), LBFGS) fitted on the 600 training rows, scored on 797 test rows.
Fix: fit the temperature on the 400 validation rows.

Measured (600 steps; test NLL and ECE after scaling, 797 rows): seed 0, fitted T 0.12 for
the bug against 1.31 for the fixed twin, test NLL 0.690 against 0.143 (0.139 before scaling),
ECE 0.042 against 0.019; seeds shifted by 1000, T 0.11 against 1.30, NLL 0.807 against
0.146, ECE 0.043 against 0.020. Accuracy is the same (0.956, 0.955) in both.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._calibration_digits import (expected_calibration_error, split,
                                                      train_with_validation)

TITLE = "Why calibration parameter T is learned on validation set and not training set?"
LINK = "https://github.com/gpleiss/temperature_scaling/issues/37"
EXPECTED = ("TEMPERATURE_FITTED_ON_TRAINING_ROWS",)
STEPS = 600


def fit_temperature(logits, labels):
    """One temperature by LBFGS on the NLL, T = exp(s) kept positive."""
    log_t = torch.zeros(1, requires_grad=True)
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
    train, validation, (x_test, y_test) = split(seed=0)
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        train_with_validation(mon, model, optimizer, train, validation, steps)
        model.eval()
        calibration = validation if fixed else train   # BUG: the rows the model was fitted on
        with torch.no_grad():
            calibration_logits = model(calibration[0])
            test_logits = model(x_test)
    temperature = fit_temperature(calibration_logits, calibration[1])
    scaled = test_logits / temperature
    mon.temperature = temperature
    mon.test_nll_before = float(F.cross_entropy(test_logits, y_test))
    mon.test_nll_after = float(F.cross_entropy(scaled, y_test))
    mon.test_ece_after = expected_calibration_error(F.softmax(scaled, 1), y_test)
    mon.test_accuracy = float((scaled.argmax(1) == y_test).float().mean())
    return mon

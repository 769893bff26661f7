"""Monte Carlo dropout sampled with the model in eval mode: the uncertainty estimate runs T
stochastic forward passes per input and reads the spread of their predictions, but the
inference code calls ``model.eval()`` first, which turns every dropout layer off. The T
passes are identical, the variance is exactly zero for every input, and the "uncertainty"
tells nothing: it cannot rank a likely mistake above a sure prediction. No error, no NaN;
the mean prediction is the plain deterministic one.

Reported: "Set dropout to training in monte-carlo mode while inference" -
https://github.com/TiagoCortinhal/SalsaNext/issues/40 (the inference code set the model to
eval before its Monte Carlo passes; the reporter pointed out that without dropout the passes
all give the same result, so the variance is always zero, and the author agreed and fixed
it). Here a digits MLP with two dropout layers, validated every epoch, and after training
scored with 20 Monte Carlo passes over 797 test rows; the uncertainty is the predictive
variance of the predicted class's probability.
Fix: after ``model.eval()``, put only the dropout layers back in training mode for the
Monte Carlo passes (batch norm, were there any, stays in eval mode).

Measured (300 steps, 20 passes, seed 0): the bug's predictive variance is 0 on every test
row, so its AUROC for telling misclassified rows from correct ones is 0.500; the twin's is
0.923 (both classify 96.6% of the test rows correctly).
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._calibration_digits import auroc, split, train_with_validation

TITLE = "Set dropout to training in monte-carlo mode while inference"
LINK = "https://github.com/TiagoCortinhal/SalsaNext/issues/40"
EXPECTED = ("MC_DROPOUT_SAMPLED_IN_EVAL_MODE",)
STEPS = 300
PASSES = 20          # Monte Carlo forward passes per input
DROPOUT = 0.3


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (x_train, y_train), (x_val, y_val), (x_test, y_test) = split(seed=0)
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Dropout(DROPOUT),
                          nn.Linear(128, 128), nn.ReLU(), nn.Dropout(DROPOUT),
                          nn.Linear(128, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        train_with_validation(mon, model, optimizer, (x_train, y_train), (x_val, y_val), steps)
        # Monte Carlo dropout over the test rows
        model.eval()
        if fixed:
            for module in model.modules():
                if isinstance(module, nn.Dropout):
                    module.train()
        # BUG (unfixed): every dropout layer is off, so the passes are all the same
        with torch.no_grad():
            probs = torch.stack([F.softmax(model(x_test), 1) for _ in range(PASSES)])
    mean = probs.mean(0)
    predicted = mean.argmax(1)
    variance = probs[:, torch.arange(len(x_test)), predicted].var(0)
    wrong = predicted != y_test
    mon.extra = {"mean_variance": float(variance.mean()),
                 "misclassification_auroc": round(auroc(variance, wrong), 3),
                 "test_nll": round(float(F.nll_loss(mean.clamp_min(1e-12).log(), y_test)), 3),
                 "test_accuracy": round(float((~wrong).float().mean()), 3)}
    return mon

"""An input-gradient penalty (double backpropagation: the squared norm of the loss's
gradient with respect to the input, added to the loss to make the model smooth around the
data) whose gradient is taken with torch.autograd.grad(..., retain_graph=True) but without
create_graph=True: the gradient comes back as a constant with no graph, so the penalty is
a number added to the loss that no weight can move. The model trains on the plain
cross-entropy; the penalty's weight changes nothing.

Reported: "Input-output Jacobian difference as loss function" -
https://discuss.pytorch.org/t/input-output-jacobian-difference-as-loss-function/174151 (a
distillation loss penalising the input-output Jacobian; "my model is not training
correctly and I think it is because the computational graph is not what I think it should
be": with retain_graph=True only, "the result no longer requires grad", and forcing
requires_grad on it "does not attach the Jacobian back onto the computational graph"; the
gradient must be taken with create_graph=True for the penalty to reach the weights).
Here an MLP (64-128-10) is trained on the digits with cross-entropy plus 1.0 x the mean
squared input-gradient norm (times the batch size, so it is not negligible) for 300 steps.
Fix: create_graph=True in the autograd.grad call.

Measured (300 steps, 1400 training / 397 held-out digits): the penalty's own quantity
averaged over the last 50 steps is 1.495 for the bug and 0.577 for the fixed twin (the
regulariser never applied); FGSM accuracy 0.622 against 0.668 (clean 0.945 against 0.864:
the penalty trades clean accuracy for smoothness, as it should) (``run``'s mon.measured).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = "Input-output Jacobian difference as loss function"
LINK = "https://discuss.pytorch.org/t/input-output-jacobian-difference-as-loss-function/174151"
EXPECTED = ("LOSS_TERM_WITHOUT_GRADIENT",)
STEPS = 300
PENALTY = 1.0
EPSILON = 0.1


def fgsm_accuracy(model, x, y):
    x = x.clone().requires_grad_(True)
    grad, = torch.autograd.grad(nn.functional.cross_entropy(model(x), y), x)
    with torch.no_grad():
        x_adv = (x + EPSILON * grad.sign()).clamp(0, 1)
        return round(float((model(x_adv).argmax(1) == y).float().mean()), 3)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    order = torch.randperm(len(y), generator=torch.Generator().manual_seed(0))
    x, y = x[order], y[order]
    (x_train, y_train), (x_test, y_test) = (x[:1400], y[:1400]), (x[1400:], y[1400:])
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    norms = []
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x_train, y_train, steps):
            xb = xb.clone().requires_grad_(True)
            ce = nn.functional.cross_entropy(model(xb), yb)
            grad, = torch.autograd.grad(ce, xb, retain_graph=True,
                                        create_graph=fixed)      # BUG: no create_graph
            penalty = (grad * len(xb)).pow(2).sum(1).mean()
            norms.append(float(penalty.detach()))
            loss = ce + PENALTY * penalty
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        clean = round(float((model(x_test).argmax(1) == y_test).float().mean()), 3)
    mon.measured = {"clean": clean, "fgsm": fgsm_accuracy(model, x_test, y_test),
                    "penalty_last50": round(sum(norms[-50:]) / 50, 3)}
    return mon

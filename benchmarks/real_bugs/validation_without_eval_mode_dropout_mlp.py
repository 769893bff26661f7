"""An MNIST MLP with dropout whose per-epoch validation pass (and final test) runs without
``model.eval()``: dropout stays on while the held-out digits are scored, so the validation
loss that picks the saved checkpoint is noisy and inflated, and the reported accuracy is
that of a randomly thinned network, not of the trained one.

Reported: "Eval in .../mnist-mlp/mnist_mlp_solution_with_validation.ipynb" -
https://github.com/udacity/deep-learning-v2-pytorch/issues/399 ("when we do validation and
test result we should call model.eval(). Right? Specially because we have DropOut layers").
Here the 8x8 digits, the notebook's MLP shape (two hidden layers, dropout 0.2 after each)
with SGD (lr 0.05, momentum 0.9), 200 steps of 32, a validation pass on 200 held-out digits every 25
steps keeping the weights of the lowest validation loss, and a test on 200 others. Fix:
``model.eval()`` for validation and test, ``model.train()`` after.

Measured (test accuracy as the script reports it, bug vs fixed): seed 0: 0.93 vs 0.97;
seeds + 1000: 0.90 vs 0.945.
"""
import copy

import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._beginner_cls import first_mlp, split_digits
from benchmarks.real_bugs._common import batches

TITLE = ("Eval in https://github.com/udacity/deep-learning-v2-pytorch/blob/master/"
         "convolutional-neural-networks/mnist-mlp/mnist_mlp_solution_with_validation.ipynb")
LINK = "https://github.com/udacity/deep-learning-v2-pytorch/issues/399"
EXPECTED = ("VALIDATION_IN_TRAIN_MODE",)
STEPS = 200
VALIDATE_EVERY = 25


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = split_digits()
    x_val, y_val, x_test, y_test = x_held[:200], y_held[:200], x_held[200:], y_held[200:]
    model = first_mlp(dropout=0.2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    best, best_state = float("inf"), None
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(x, y, steps, batch_size=32), 1):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
            if step % VALIDATE_EVERY == 0:
                if fixed:
                    model.eval()                 # BUG when not fixed: dropout stays on
                with torch.no_grad():
                    valid_loss = loss_fn(model(x_val), y_val).item()
                model.train()
                if valid_loss < best:
                    best, best_state = valid_loss, copy.deepcopy(model.state_dict())
    model.load_state_dict(best_state)
    if fixed:
        model.eval()
    with torch.no_grad():
        mon.held_out_accuracy = (model(x_test).argmax(1) == y_test).float().mean().item()
    return mon

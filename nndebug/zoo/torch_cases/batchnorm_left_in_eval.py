"""Validation switches the model to eval mode and nothing switches it back."""
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo.common import batches, digits, to_framework

NAME = "torch/batchnorm-left-in-eval"
FRAMEWORK = "torch"
EXPECTED = "TRAINING_IN_EVAL_MODE"
DESCRIPTION = ("Every 20 steps the loop evaluates on the validation set with model.eval(), but "
               "never calls model.train() again: from then on batch norm trains with frozen "
               "running statistics.")
FIX = "Call model.train() after each evaluation (or at the top of every training step)."
STEPS = 100


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_val, y_val = digits(val=True)
    x_val, y_val = to_framework("torch", x_val, y_val)
    model = nn.Sequential(nn.Linear(64, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for step, (xb, yb) in enumerate(batches(x, y, steps)):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            val_loss = None
            if step % 20 == 19:
                model.eval()   # BUG: switched to eval for validation, never back to train()
                with torch.no_grad():
                    val_loss = loss_fn(model(x_val), y_val)
            mon.step(loss, val_loss=val_loss)
    return mon

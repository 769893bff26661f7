"""Training a dropout network in eval mode (model.eval() left on)."""
import torch
from torch import nn

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "torch/eval-mode-dropout"
FRAMEWORK = "torch"
EXPECTED = "TRAINING_IN_EVAL_MODE"
DESCRIPTION = ("model.eval() is called once (say, after loading a checkpoint) and training "
               "starts without model.train(): dropout is silently switched off while training.")
FIX = "Call model.train() before every training phase, model.eval() only around evaluation."
STEPS = 60


def run(steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = digits()
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Dropout(0.5), nn.Linear(128, 10))
    model.eval()   # BUG: left in eval mode for training
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon

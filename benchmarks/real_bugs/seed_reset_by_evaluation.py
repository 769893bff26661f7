"""The evaluation at the end of every epoch seeds torch's global random generator (to draw
the same sample noise each time): the DataLoader's shuffle reads that same generator, so
every epoch after it draws the very same order of batches, and the run sees one sequence
of batches over and over instead of a new shuffle each epoch.

Reported: "Bug in diffusers basic training tutorial" -
https://github.com/huggingface/diffusers/issues/7991 ("setting the manual seed argument
(generator=torch.manual_seed(config.seed)) in the pipeline call inside evaluate() function
rewinds the dataloader shuffling, leading to overfitting due to the model see same
sequence of training examples after every evaluation call"). Here a digits MLP, a
DataLoader with shuffle=True, and an evaluation after every epoch that draws its noise
from torch.manual_seed(SEED), the seed the script started from. Fix: draw the evaluation
noise from a private generator, torch.Generator().manual_seed(SEED), which leaves the
global one (and so the shuffling) alone.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import classification, mlp

TITLE = "Bug in diffusers basic training tutorial"
LINK = "https://github.com/huggingface/diffusers/issues/7991"
EXPECTED = ("RNG_RESEEDED", "DATA_ORDER_REPEATS")
STEPS = 168          # six epochs of 28 batches
BATCH = 64
SEED = 0


def evaluate(model, fixed):
    """The tutorial's end-of-epoch look at the model: outputs on seeded noise."""
    if fixed:
        generator = torch.Generator().manual_seed(SEED)
    else:
        generator = torch.manual_seed(SEED)      # BUG: re-seeds the global generator, which
                                                 # the DataLoader's shuffle draws from
    with torch.no_grad():
        return model(torch.rand(16, 64, generator=generator))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(SEED)
    x, y = classification()
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y),
                                         batch_size=BATCH, shuffle=True, drop_last=True)
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    done = 0
    with nd.watch(model, optimizer, **watch) as mon:
        while done < steps:
            for xb, yb in loader:
                optimizer.zero_grad()
                loss = loss_fn(model(xb), yb)
                loss.backward()
                optimizer.step()
                mon.step(loss)
                done += 1
                if done == steps:
                    break
            evaluate(model, fixed)
    return mon

"""The training loader is built with shuffle=False over a dataset stored class by class:
every batch holds one class, the same batches come in the same order every epoch, and the
model chases one class after the other.

Reported: "Default dataloader params have shuffle=False" -
https://github.com/Deci-AI/super-gradients/issues/416 ("it does not pass shuffle=True to
the dataloader, so SequentialSampler gets instantiated. In training on Imagenet it makes NN
see only examples of a single class which quickly throws it out of the minima"). Here the
digits are stored sorted by label (as an image folder lists them) and read in order for
about 5 epochs. Fix: shuffle every epoch (DataLoader(shuffle=True)).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "Default dataloader params have shuffle=False"
LINK = "https://github.com/Deci-AI/super-gradients/issues/416"
EXPECTED = ("BATCHES_OF_ONE_CLASS", "DATA_ORDER_REPEATS")
STEPS = 150
BATCH = 64


def in_order(x, y, steps):
    """The loader with shuffle=False: consecutive batches, the same ones every epoch."""
    done = 0
    while True:
        for start in range(0, len(x) - BATCH + 1, BATCH):
            yield x[start:start + BATCH], y[start:start + BATCH]
            done += 1
            if done == steps:
                return


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    order = torch.argsort(y, stable=True)       # stored class by class
    x, y = x[order], y[order]
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    loader = batches(x, y, steps, batch_size=BATCH) if fixed else in_order(x, y, steps)
    return train_watched(model, optimizer, loss_fn, loader, **watch)    # BUG: never shuffled

"""Adam's betas written in the other convention (the decay's complement, 1 - beta): the
second-moment average forgets everything after one step, so each step is about
lr x sign(gradient) with almost no momentum, and training is noisy and stalls early.

Reported: "Adam moment parameterization is backwards" -
https://github.com/mila-iqia/blocks/issues/1159 ("beta1 and beta2 are 1-beta1 and
1-beta2, with respect to how the final version of the paper uses them ... I'd put in the
customary default of 0.999 for beta2, which of course meant that, once you flipped it
around, my second moment estimates decayed faster than an anxious squirrel"). Here the
same mix-up the other way round: settings written as 1 - beta (0.1 and 0.001) handed to
torch's Adam, which takes beta itself. A digits MLP at lr=1e-2. Fix: betas=(0.9, 0.999).
"""
import torch

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "Adam moment parameterization is backwards"
LINK = "https://github.com/mila-iqia/blocks/issues/1159"
EXPECTED = ("ADAM_BETAS_INVERTED",)
STEPS = 150


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    betas = (0.9, 0.999) if fixed else (0.1, 0.001)   # BUG: 1 - beta, not beta
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2, betas=betas)
    loss_fn = torch.nn.CrossEntropyLoss()
    return train_watched(model, optimizer, loss_fn, batches(x, y, steps), **watch)

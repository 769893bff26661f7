"""The model cast to float16 with .half() and trained with Adam at its default eps=1e-8:
1e-8 is below the smallest float16 number (6e-8) and rounds to 0, so wherever a squared
gradient also underflows to 0, Adam divides 0 by sqrt(0) + 0 and writes NaN into the
weights on the first step, although the loss and every gradient were finite.

Reported: "Training on half precision leads to nan values" -
https://github.com/afiaka87/glide-finetune/issues/5 ("after just the first iteration I was
running into nan values ... my gradients and input values/images were all normal but the
adam optimizer ... produces nans probably because of a divide by 0"; fixed by pull request
#6: eps=1e-4). Here the digits MLP cast to float16 and trained with AdamW at lr=1e-3. Fix:
eps=1e-4 (better: float32 weights with autocast and a GradScaler).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "Training on half precision leads to nan values"
LINK = "https://github.com/afiaka87/glide-finetune/issues/5"
EXPECTED = ("NAN_FROM_OPTIMIZER_STEP",)
STEPS = 150


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp().half()
    eps = 1e-4 if fixed else 1e-8                  # BUG: 1e-8 is 0 in float16
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, eps=eps)
    data = ((xb.half(), yb) for xb, yb in batches(x, y, steps))
    loss_fn = lambda out, yb: nn.functional.cross_entropy(out.float(), yb)   # noqa: E731
    return train_watched(model, optimizer, loss_fn, data, **watch)

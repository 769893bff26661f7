"""Gradient descent written by hand (``params -= params.grad * lr`` under no_grad) with no
line that clears ``.grad``: every ``backward()`` adds its gradient to all the earlier
ones, so each step moves by the sum of every gradient so far. The loss falls for a few
steps, then the summed old gradients carry the parameters past the minimum and it grows
again.

Reported: "Possible Error" - https://github.com/fastai/course22/issues/58 (the notebook
"How does a neural net really work?" fits a quadratic's three coefficients by hand;
the reporter: "If you run this loop for more than 10 iterations the loss starts growing
again ... this is because every time that loss.backward() is exectuted the gradients are
'accumulated' rather than recomputed. If the gradients are reset to zero after each
iteration, it converges to a minimum"). Here the notebook's fit (noisy points of
3x^2 + 2x + 1, mean absolute error, lr 0.01), its three coefficients held by a one-
parameter module so that watch can follow them. Fix: ``params.grad.zero_()`` after each
update.

Measured (150 steps): with the gradients never cleared the loss falls from 3.5 to 1.1
by step 17, swings back up to 3.5 and keeps swinging (3.4 at the last step); with them
cleared it falls steadily to 0.78.
"""
import torch
from torch import nn

TITLE = "Possible Error"
LINK = "https://github.com/fastai/course22/issues/58"
EXPECTED = ("GRADIENTS_ACCUMULATING",)
STEPS = 150
LR = 0.01


class Quadratic(nn.Module):
    """a * x^2 + b * x + c, the three coefficients one parameter (the notebook's abc)."""

    def __init__(self):
        super().__init__()
        self.abc = nn.Parameter(torch.tensor([1.1, 1.1, 1.1]))

    def forward(self, x):
        a, b, c = self.abc
        return a * x ** 2 + b * x + c


def noisy_points(seed=42):
    """The notebook's data: 20 points of 3x^2 + 2x + 1 on [-2, 2], noise added and scaled."""
    generator = torch.Generator().manual_seed(seed)
    x = torch.linspace(-2, 2, steps=20)[:, None]
    clean = 3 * x ** 2 + 2 * x + 1
    noise = lambda: torch.rand(clean.shape, generator=generator)   # noqa: E731
    return x, clean * (1 + noise() * 0.15 - 0.075) + noise() * 1.5


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    x, y = noisy_points()
    model = Quadratic()
    mon = nd.watch(model, **watch)      # no optimizer: the loop updates the weights itself
    losses = []
    with mon:
        for _ in range(steps):
            loss = (model(x) - y).abs().mean()
            loss.backward()
            with torch.no_grad():
                model.abc -= model.abc.grad * LR
                if fixed:
                    model.abc.grad.zero_()      # BUG (fixed=False): this line was missing
            mon.step(loss)
            losses.append(round(float(loss), 2))
    mon.losses = losses
    return mon

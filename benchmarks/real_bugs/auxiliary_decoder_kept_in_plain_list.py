"""A multi-task model whose auxiliary losses are kept in a plain Python ``list`` attribute. One
of them, a reconstruction loss, owns a trainable decoder - and a module held in a plain list
is not registered: ``model.parameters()`` does not contain the decoder, so the optimizer built
from it never updates it. The decoder stays at its random initialisation for the whole run,
while backward still sends the reconstruction's gradient into the shared encoder: the
encoder is pulled toward whatever codes a random decoder happens to map near the inputs.
Nothing fails - the decoder's ``.grad`` is filled every step, the total loss falls a little.

Reported: "MultiTaskCV: Save lists of auxiliary losses in ModuleList" -
https://github.com/luigibonati/mlcolvar/issues/52 (mlcolvar's MultiTaskCV kept its
auxiliary loss functions in a normal list; the maintainers noted that saving them in a
``ModuleList`` is needed so that "if the loss function has trainable parameters (e.g., a
decoder for reconstruction losses) they will be optimized as well", and made that change).
Here a digits encoder to a 4-dimensional code, shared by a digit classifier (the main loss)
and an auxiliary reconstruction loss that decodes the code back to the 64 pixels; Adam on
``model.parameters()``, 400 steps. Fix: hold the auxiliary losses in an ``nn.ModuleList``.

Measured (297 held-out digits; reconstruction error is the mean squared pixel error, pixels
in [0, 1]): seed 0: held-out reconstruction error 0.418 for the bug against 0.039 for the
fixed twin (the digit accuracy is unharmed: 0.865 against 0.832); seeds shifted by 1000:
0.380 against 0.042 (0.855 against 0.855). The auxiliary task is what learns badly: ten
times the fixed twin's error, from a decoder that never moved.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._mt161 import accuracy, digits, rows

TITLE = "MultiTaskCV: Save lists of auxiliary losses in ModuleList"
LINK = "https://github.com/luigibonati/mlcolvar/issues/52"
EXPECTED = ("OPTIMIZER_MISSING_PARAMS",)
STEPS = 400
CODE = 4


class Reconstruction(nn.Module):
    """An auxiliary loss with its own trainable decoder."""

    def __init__(self):
        super().__init__()
        self.decoder = nn.Sequential(nn.Linear(CODE, 32), nn.ReLU(), nn.Linear(32, 64))

    def forward(self, code, x):
        return F.mse_loss(self.decoder(code), x)


class MultiTaskCV(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, CODE))
        self.classifier = nn.Linear(CODE, 10)
        if fixed:
            self.aux_losses = nn.ModuleList([Reconstruction()])
        else:
            self.aux_losses = [Reconstruction()]    # BUG: a plain list registers nothing

    def loss(self, x, y):
        code = self.encoder(x)
        total = F.cross_entropy(self.classifier(code), y)
        for aux in self.aux_losses:
            total = total + aux(code, x)
        return total


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_held, y_held = digits()
    model = MultiTaskCV(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.003)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in rows(len(x), steps):
            optimizer.zero_grad()
            loss = model.loss(x[index], y[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        code = model.encoder(x_held)
        mon.held_out_accuracy = accuracy(model.classifier(code), y_held)
        mon.held_out_reconstruction_error = round(
            float(F.mse_loss(model.aux_losses[0].decoder(code), x_held)), 4)
    return mon

"""A checkpoint written by a PyTorch Lightning module whose network is its ``.model``
attribute: every key of the saved state dict starts with ``model.``. Loaded into the bare
network with ``load_state_dict(state_dict, strict=False)``, no key matches, nothing is
loaded, and no error is raised: the network keeps its random initialisation while the run
goes on as if it continued from the checkpoint.

Reported: "nn.module load_state_dict strict=False can silently load a corrupted model" -
https://github.com/pytorch/examples/issues/1029 ("The state_dict contained keys which
included ``model.`` ahead of the key values I assume because my lightning model includes a
.model attribute. Using strict=False allows the model to load without error, but the model
output was nonsense. Manually removing the ``model.`` ahead of all of the keys and removing
strict=False solved the problem"). Here a digits CNN trained 300 steps inside such a wrapper
is saved; a new run loads the wrapper's state dict into the bare CNN with strict=False and
continues training it for 150 steps with SGD at 1e-3 and momentum 0.9 (a fine-tuning
rate), as a resumed run would.

Measured (150 steps, 297 held-out digits): the bug starts at chance (2.31) and ends at 2.27
(last 10 steps), held-out accuracy 0.23; the fixed twin starts at 0.13, ends at 0.10 and
reaches 0.91. Fix: strip the
prefix (``{k.removeprefix("model."): v ...}``) and load with ``strict=True``, which raises on
any missing key; or check the ``missing_keys`` that ``load_state_dict`` returns.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "nn.module load_state_dict strict=False can silently load a corrupted model"
LINK = "https://github.com/pytorch/examples/issues/1029"
EXPECTED = ("PRETRAINED_WEIGHTS_NOT_LOADED",)
STEPS = 150
FIRST_STEPS = 300
HELD_OUT = 297


def cnn():
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(128, 10))


class LitModule(nn.Module):
    """The training wrapper: the network is its ``.model``, so keys read 'model.0.weight'."""

    def __init__(self):
        super().__init__()
        self.model = cnn()

    def forward(self, x):
        return self.model(x)


def lightning_checkpoint(x, y):
    module = LitModule()
    optimizer = torch.optim.Adam(module.parameters(), lr=1e-3)
    for xb, yb in batches(x, y, FIRST_STEPS, seed=1):
        optimizer.zero_grad()
        nn.functional.cross_entropy(module(xb), yb).backward()
        optimizer.step()
    return {"state_dict": {k: v.clone() for k, v in module.state_dict().items()}}


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    x_train, y_train = x[:-HELD_OUT], y[:-HELD_OUT]
    state_dict = lightning_checkpoint(x_train, y_train)["state_dict"]
    model = cnn()
    if fixed:
        model.load_state_dict({k.removeprefix("model."): v for k, v in state_dict.items()},
                              strict=True)
    else:
        model.load_state_dict(state_dict, strict=False)   # BUG: every key 'model.'-prefixed
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        batches(x_train, y_train, steps), **watch)
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon

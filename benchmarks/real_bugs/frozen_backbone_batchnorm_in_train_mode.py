"""A linear probe on a frozen, pretrained backbone whose batch-norm layers stay in train
mode: the backbone's weights never change (requires_grad=False), but every training
forward pass overwrites its batch-norm running statistics with the new data's, so the
"frozen" features the head is fitted to are not the ones the model computes in eval mode.

Reported: "BatchNormalization's Running Stats are Accumulated in ImageNet Linear
Evaluation" - https://github.com/kdexd/virtex/issues/16 ("the models are set with
`.train()` ... the running averages of BatchNormalization layers will be accumulated ...
the backbone model seems not to be fully frozen"; the author: "This is indeed a bug ...
the `.train()` call will alter BatchNorm behavior"). Here a small conv net with batch norm,
pretrained on the digits 0-4, frozen, and probed on all ten digits with a new linear head;
over the probe the second batch norm's running mean moves by about a fifth of its norm
(the first one's by 4%), so the backbone evaluated afterwards is no longer the pretrained one.
Fix: keep the backbone's batch norm frozen too (here torchvision-style frozen batch norm:
the pretrained statistics as constants, as detection backbones do).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "BatchNormalization's Running Stats are Accumulated in ImageNet Linear Evaluation"
LINK = "https://github.com/kdexd/virtex/issues/16"
EXPECTED = ("FROZEN_BATCHNORM_UPDATING",)
STEPS = 120
PRETRAIN_STEPS = 60


class FrozenBatchNorm2d(nn.Module):
    """Batch norm with its statistics and affine terms as constants (buffers): the same
    output in train and eval mode, as torchvision's FrozenBatchNorm2d."""

    def __init__(self, bn):
        super().__init__()
        scale = bn.weight.detach() / torch.sqrt(bn.running_var + bn.eps)
        self.register_buffer("scale", scale)
        self.register_buffer("shift", bn.bias.detach() - bn.running_mean * scale)

    def forward(self, x):
        return x * self.scale[None, :, None, None] + self.shift[None, :, None, None]


def backbone():
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Conv2d(16, 32, 3, padding=1),
                         nn.BatchNorm2d(32), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                         nn.Flatten())


def pretrained(x, y):
    """The backbone trained (with its own head) on the digits 0-4 only."""
    body = backbone()
    model = nn.Sequential(body, nn.Linear(32, 5))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    keep = y < 5
    for xb, yb in batches(x[keep], y[keep], PRETRAIN_STEPS, seed=1):
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(xb), yb).backward()
        optimizer.step()
    return body


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    body = pretrained(x, y)
    for p in body.parameters():
        p.requires_grad_(False)                  # the backbone is frozen ...
    if fixed:
        for i, layer in enumerate(body):
            if isinstance(layer, nn.BatchNorm2d):
                body[i] = FrozenBatchNorm2d(layer)
    model = nn.Sequential(body, nn.Linear(32, 10))
    model.train()                                # BUG: ... but its batch norm keeps updating
    optimizer = torch.optim.Adam(model[1].parameters(), lr=1e-2)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps),
                         **watch)

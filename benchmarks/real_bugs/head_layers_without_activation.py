"""The prediction head is two Linear layers with nothing between them: the hidden layer adds
parameters but no capacity, since two affine maps in a row are one affine map. The network
is a backbone followed by a linear read-out, however wide the "hidden" layer is.

Reported: "Potential bug in mtp.py" - https://github.com/nutonomy/nuscenes-devkit/issues/728
(MTP's ``forward`` computes ``self.fc2(self.fc1(features))``: "it appears that a
nonlinearity is missing between the linear layers. Or you might not need it, in which case
... the two linear layers can be combined"; the maintainer: "Ooops, that looks like an
error. Good catch."). Here a small convolutional backbone reads the 8x8 digits and the head
predicts the digit's value (a regression, as MTP's trajectories are). Fix: a ReLU between
the two layers.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Potential bug in mtp.py"
LINK = "https://github.com/nutonomy/nuscenes-devkit/issues/728"
EXPECTED = ("LINEAR_LAYERS_STACKED",)
STEPS = 400
HIDDEN = 128


class MTP(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(1, 2, kernel_size=3), nn.ReLU(),
                                      nn.MaxPool2d(2), nn.Flatten())
        self.fc1 = nn.Linear(2 * 3 * 3, HIDDEN)
        self.fc2 = nn.Linear(HIDDEN, 1)
        self.fixed = fixed

    def forward(self, images):
        features = self.backbone(images)
        hidden = self.fc1(features)
        if self.fixed:
            hidden = torch.relu(hidden)
        return self.fc2(hidden).squeeze(1)    # BUG when not fixed: fc2(fc1(x)), no nonlinearity


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    value = y.float()
    target = (value - value.mean()) / value.std()
    model = MTP(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, nn.MSELoss(), batches(x, target, steps), **watch)

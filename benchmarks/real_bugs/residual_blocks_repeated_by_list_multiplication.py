"""The residual blocks of a deep ResNet built as ``n_blocks * [ResBlock(...)]``: Python's list
multiplication repeats one object, so ``nn.Sequential`` holds the same block ten times. The
"ten-block" network has the weights of one block, applied ten times over, and one batch norm
whose running statistics are updated ten times a forward, by ten depths' activations. In
training mode each call normalises with its own batch statistics and the loss falls; in eval
mode every depth is normalised with the blend of all ten: the validation loss climbs from
2.2 to near 6 while the fixed twin's falls to 0.05.

Reported: "p1ch8: "ResBlock" objects are most likely identical" -
https://github.com/deep-learning-with-pytorch/dlwpt-code/issues/89 (the book's
``nn.Sequential(*(n_blocks * [ResBlock(n_chans=n_chans1)]))``; "considering that objects are
copied by reference ... the weight matrices across created ResBlocks are identical"; the
maintainer: "Absolutely, thank you for spotting this"). The same slip was reported in
https://github.com/zalandoresearch/pytorch-vq-vae/issues/2 and
https://github.com/yaoppeng/U-Net_v2/issues/10. Here the book's NetResDeep, scaled to the 8x8
digits. Fix: one new block per position, ``[ResBlock(n_chans) for _ in range(n_blocks)]``.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification

TITLE = 'p1ch8: "ResBlock" objects are most likely identical'
LINK = "https://github.com/deep-learning-with-pytorch/dlwpt-code/issues/89"
EXPECTED = ("MODULE_REPEATED_IN_CONTAINER",)
STEPS = 200
EPOCH = 22           # batches of 64 in the training split
CHANNELS = 8
BLOCKS = 10


class ResBlock(nn.Module):
    def __init__(self, n_chans):
        super().__init__()
        self.conv = nn.Conv2d(n_chans, n_chans, kernel_size=3, padding=1, bias=False)
        self.batch_norm = nn.BatchNorm2d(num_features=n_chans)
        nn.init.kaiming_normal_(self.conv.weight, nonlinearity="relu")   # as in the book
        nn.init.constant_(self.batch_norm.weight, 0.5)
        nn.init.zeros_(self.batch_norm.bias)

    def forward(self, x):
        return x + torch.relu(self.batch_norm(self.conv(x)))


class NetResDeep(nn.Module):
    def __init__(self, fixed, n_chans=CHANNELS, n_blocks=BLOCKS):
        super().__init__()
        self.conv1 = nn.Conv2d(1, n_chans, kernel_size=3, padding=1)
        if fixed:
            blocks = [ResBlock(n_chans) for _ in range(n_blocks)]
        else:
            blocks = n_blocks * [ResBlock(n_chans)]     # BUG: one block, listed ten times
        self.resblocks = nn.Sequential(*blocks)
        self.fc1 = nn.Linear(n_chans * 4 * 4, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        out = F.max_pool2d(torch.relu(self.conv1(x)), 2)
        out = self.resblocks(out)
        out = torch.relu(self.fc1(out.flatten(1)))
        return self.fc2(out)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    order = torch.randperm(len(x), generator=torch.Generator().manual_seed(0))
    cut = int(0.8 * len(x))
    x_train, y_train = x[order[:cut]], y[order[:cut]]
    x_val, y_val = x[order[cut:]], y[order[cut:]]
    model = NetResDeep(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for done, (xb, yb) in enumerate(batches(x_train, y_train, steps), start=1):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            val_loss = None
            if done % EPOCH == 0 or done == steps:
                model.eval()
                with torch.no_grad():
                    val_loss = F.cross_entropy(model(x_val), y_val)
                model.train()
            mon.step(loss, val_loss=val_loss)
    return mon

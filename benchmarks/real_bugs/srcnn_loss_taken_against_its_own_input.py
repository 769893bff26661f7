"""An SRCNN whose training loss compares the network's output with the interpolated
low-resolution image it was given, not with the high-resolution image: the label handed to
the MSE is the input batch. The best the network can do is copy its input, so it learns the
identity and its "super-resolved" digits are the bilinear upsampling it started from; the
training loss falls towards zero all the same.

Reported: "Training Labels Might Be Not Correct?" -
https://github.com/YeongHyeon/Super-Resolution_CNN-PyTorch/issues/2 (an SRCNN in PyTorch:
"in the loss function part, you assigned the 'label' to be X_tr_t instead of Y_tr_t";
the author: "I have updated that error now"). Here the SRCNN shape (9-1-5 style: 5x5 conv to
32 maps, 1x1 to 16, 3x3 back to one channel, ReLUs between) on the 8x8 digits: each digit
averaged down to 4x4 and upsampled bilinearly back to 8x8 is the input, the sharp digit the
label; Adam, batches of 64, 300 steps.

Fix: the MSE against the high-resolution batch, mse(model(upsampled), sharp).

Measured (held-out PSNR on 512 digits, dB; bilinear upsampling alone: 12.71): 12.68 with
the bug, 14.70 fixed; seeds + 1000: 12.71 vs 15.20.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._sr_denoise_beginner import digits, downsampled, psnr, upsampled

TITLE = "Training Labels Might Be Not Correct?"
LINK = "https://github.com/YeongHyeon/Super-Resolution_CNN-PyTorch/issues/2"
EXPECTED = ("TARGETS_IN_INPUTS",)
STEPS = 300


class SRCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.patch = nn.Conv2d(1, 32, 5, padding=2)
        self.mapping = nn.Conv2d(32, 16, 1)
        self.reconstruct = nn.Conv2d(16, 1, 3, padding=1)

    def forward(self, x):
        return self.reconstruct(F.relu(self.mapping(F.relu(self.patch(x)))))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held_out = digits()
    inputs = upsampled(downsampled(train))
    model = SRCNN()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train), steps, batch_size=64, seed=0):
            x_batch, y_batch = inputs[index], train[index]
            output = model(x_batch)
            if fixed:
                loss = F.mse_loss(output, y_batch)
            else:
                loss = F.mse_loss(output, x_batch)      # BUG: the label is the input batch
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        low = upsampled(downsampled(held_out))
        mon.held_out_psnr = psnr(model(low), held_out)
        mon.bilinear_psnr = psnr(low, held_out)
    return mon

"""A spiking network trained with STBP's rectangular surrogate gradient (the spike's
pseudo-derivative is a box of width 0.5 around the threshold, exactly zero outside it)
with a firing threshold too high for its layers' input currents. Most hidden neurons'
membranes never come within the box's reach of the threshold, so they neither fire nor
receive any gradient - they die at the start and stay dead - and the output spike rates
the MSE loss reads barely move: the loss stays almost where it began and the accuracy
stays low. Nothing errors.

Reported: "cifar10 code, loss remains unchanged" -
https://github.com/yjwu17/STBP-for-training-SpikingNN/issues/6 (the reporter's loss
"remains unchanged" with low accuracy; another user "solved it by setting firing
threshold much lower (around 0.25). Probably this issue came from neurons' early death",
asking whether 0.75 was the right hyperparameter). Here: rate-coded 8x8 digits over 8
time steps into a 64-unit LIF layer and 10 LIF output neurons with STBP's rectangular
surrogate (width 0.5), decay 0.2 and hard reset as in the repository, the MSE between
the output spike rates and the one-hot label, Adam; the threshold 0.75 against the
inputs' scale here (PyTorch's default Linear init on 0/1 spikes). Fix: threshold 0.25.

Measured (300 steps, batch 64, 297 held-out digits, accuracy of the most-spiking output
neuron): seed 0: held-out accuracy 0.11 for the bug (every output silent: the
argmax falls on class 0) against 0.94 for the fixed twin; seeds shifted by 1000: 0.10
against 0.94.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._snn import digits_split, rate_code, rectangular

TITLE = "cifar10 code，loss remains unchanged"
LINK = "https://github.com/yjwu17/STBP-for-training-SpikingNN/issues/6"
EXPECTED = ("DEAD_RELU",)
STEPS = 300
TIME_STEPS = 8
DECAY, WIDTH = 0.2, 0.5


class STBPNet(nn.Module):
    """STBP's mem_update: mem = mem * decay * (1 - spike) + W x; spike = H(mem - thresh)."""

    def __init__(self, threshold):
        super().__init__()
        self.fc1 = nn.Linear(64, 64)
        self.fc2 = nn.Linear(64, 10)
        self.threshold = threshold

    def forward(self, spikes):
        batch = spikes.shape[1]
        mem1 = spk1 = torch.zeros(batch, 64)
        mem2 = spk2 = torch.zeros(batch, 10)
        total = torch.zeros(batch, 10)
        for t in range(spikes.shape[0]):
            mem1 = mem1 * DECAY * (1 - spk1) + self.fc1(spikes[t])
            spk1 = rectangular(mem1 - self.threshold, WIDTH)
            mem2 = mem2 * DECAY * (1 - spk2) + self.fc2(spk1)
            spk2 = rectangular(mem2 - self.threshold, WIDTH)
            total = total + spk2
        return total / spikes.shape[0]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = digits_split()
    # BUG when not fixed: the threshold 0.75, far above most membranes' reach
    model = STBPNet(threshold=0.25 if fixed else 0.75)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.MSELoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            rates = model(rate_code(xb, TIME_STEPS))
            loss = loss_fn(rates, nn.functional.one_hot(yb, 10).float())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        rates = model(rate_code(x_test, TIME_STEPS))
        mon.held_out_accuracy = (rates.argmax(1) == y_test).float().mean().item()
    return mon

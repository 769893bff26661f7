"""A hand-written leaky integrate-and-fire neuron whose reset term is
``(spk - threshold).detach()`` instead of ``(spk * threshold).detach()``. With threshold
1 the "reset" is -1 at every step the neuron stays silent - one unit of charge added to
the membrane each step, whatever the input - and 0 at the steps it fires, so a spike
never resets anything. Most neurons are driven over threshold within two steps and
then keep firing (at initialisation 81% of the hidden neurons fire at each step from the
third on, against 8% with the right reset), so the spike counts carry less of the
input. It runs and the loss falls; nothing errors.

Reported: "Fix reset calculation in forward function" -
https://github.com/jeshraghian/snntorch/pull/413 (a user found that snnTorch's tutorial 6
custom neuron computed ``reset = (spk - self.threshold).detach()`` and wrote "The reset
computation is incorrect, and it should be ``reset = (spk * self.threshold).detach()``";
the fix was merged, and applied to the Chinese tutorial as well). Here: the tutorial's
neuron (spike from the previous membrane through an arctan surrogate, then
``mem = beta * mem + input - reset``) in a 64-unit hidden layer and 10 outputs, rate-coded
8x8 digits over 10 time steps, cross-entropy on the output spike counts, Adam. Fix: the
reset is the spike times the threshold.

Measured (300 steps, batch 64, 297 held-out digits, accuracy of the most-spiking output
neuron): seed 0: held-out accuracy 0.950 for the bug against 0.963 for the fixed twin;
seeds shifted by 1000: 0.933 against 0.960. The harm is modest but steady (seeds + 2000:
0.963 against 0.966; + 3000: 0.953 against 0.963): the layers learn negative biases that
cancel much of the unit of charge the bad reset adds each step, at some cost in accuracy.
"""
import math

import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._snn import digits_split, rate_code

TITLE = "Fix reset calculation in forward function"
LINK = "https://github.com/jeshraghian/snntorch/pull/413"
EXPECTED = ("SATURATED_ACTIVATIONS",)
STEPS = 300
TIME_STEPS = 10


class ATan(torch.autograd.Function):
    """Heaviside forward, arctan surrogate backward (snnTorch tutorial 5/6)."""

    @staticmethod
    def forward(ctx, mem):
        ctx.save_for_backward(mem)
        return (mem > 0).float()

    @staticmethod
    def backward(ctx, grad):
        (mem,) = ctx.saved_tensors
        return grad / (1 + (math.pi * mem) ** 2)


class LeakySurrogate(nn.Module):
    def __init__(self, beta=0.9, threshold=1.0, fixed=False):
        super().__init__()
        self.beta, self.threshold, self.fixed = beta, threshold, fixed

    def forward(self, input_, mem):
        spk = ATan.apply(mem - self.threshold)
        if self.fixed:
            reset = (spk * self.threshold).detach()
        else:   # BUG: the spike minus the threshold, not times it
            reset = (spk - self.threshold).detach()
        mem = self.beta * mem + input_ - reset
        return spk, mem


class Net(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fc1, self.lif1 = nn.Linear(64, 64), LeakySurrogate(fixed=fixed)
        self.fc2, self.lif2 = nn.Linear(64, 10), LeakySurrogate(fixed=fixed)

    def forward(self, spikes):
        mem1 = torch.zeros(spikes.shape[1], 64)
        mem2 = torch.zeros(spikes.shape[1], 10)
        count = torch.zeros(spikes.shape[1], 10)
        for t in range(spikes.shape[0]):
            spk1, mem1 = self.lif1(self.fc1(spikes[t]), mem1)
            spk2, mem2 = self.lif2(self.fc2(spk1), mem2)
            count = count + spk2
        return count, mem2


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = digits_split()
    model = Net(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            count, _ = model(rate_code(xb, TIME_STEPS))
            loss = loss_fn(count, yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        count, mem = model(rate_code(x_test, TIME_STEPS))
        score = count + 1e-3 * torch.tanh(mem)
        mon.held_out_accuracy = (score.argmax(1) == y_test).float().mean().item()
    return mon

"""A spike-count loss ("numSpikes": MSE between each output neuron's spike count and a
target count, one count for the true class and a lower one for the others) whose target
counts were tuned for a long sample (SLAYER's N-MNIST defaults: 60 spikes for the true
class, 10 for the others over 300 time steps) and kept when the samples were shortened.
Over 8 time steps a neuron can fire at most 8 times, so both targets lie above anything
the network can reach: the loss only asks every output neuron to fire as often as it can,
true class or not, and the counts stop telling the classes apart. It runs, and the loss
falls (from the silent start towards the floor the unreachable targets leave).

Reported: "Spike Loss functions" - https://github.com/bamsumit/slayerPytorch/issues/60
(the reporter found that the default spike-count targets for N-MNIST (60 and 10) "work
great for the 300ms of data, but perform worse as you decrease the sample length"; the
maintainer answered "You would want to scale your target spike count proportionally",
or parameterise the targets as spike rates). Here: rate-coded 8x8 digits over 8 time
steps into a 64-unit LIF layer and 10 LIF output neurons (fast-sigmoid surrogate
gradient, reset by subtraction), the count loss with the 300-step targets, Adam. Fix: the
targets scaled to the window (60/300 and 10/300 of the 8 steps, as rates 0.2 and 0.033).

Measured (300 steps, batch 64, 297 held-out digits, accuracy of the most-spiking output
neuron): seed 0: held-out accuracy 0.10 for the bug against 0.74 for the fixed twin;
seeds shifted by 1000: 0.10 against 0.66.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._snn import SpikingMLP, digits_split, rate_code, spike_count_accuracy

TITLE = "Spike Loss functions"
LINK = "https://github.com/bamsumit/slayerPytorch/issues/60"
EXPECTED = ("TARGETS_OUTSIDE_OUTPUT_RANGE",)
STEPS = 300
TIME_STEPS = 8
TRUE_COUNT, FALSE_COUNT, TUNED_FOR = 60.0, 10.0, 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = digits_split()
    model = SpikingMLP()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    if fixed:   # the targets scaled to the sample's length
        true_count = TRUE_COUNT * TIME_STEPS / TUNED_FOR
        false_count = FALSE_COUNT * TIME_STEPS / TUNED_FOR
    else:       # BUG: the 300-step targets kept for 8-step samples
        true_count, false_count = TRUE_COUNT, FALSE_COUNT
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            spk, _ = model(rate_code(xb, TIME_STEPS))
            counts = spk.sum(0)
            target = torch.full_like(counts, false_count)
            target[torch.arange(len(yb)), yb] = true_count
            loss = torch.nn.functional.mse_loss(counts, target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = spike_count_accuracy(model, x_test, y_test, TIME_STEPS)
    return mon

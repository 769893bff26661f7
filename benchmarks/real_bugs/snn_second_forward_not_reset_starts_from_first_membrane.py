"""Two forward passes of a stateful spiking network inside one training step with the
membranes reset only once, after optimizer.step(): the second pass does not start from
rest but from the membrane potentials the first pass left behind. In spikingjelly the
neurons keep their membrane ``v`` between calls until ``functional.reset_net(net)``;
here each step trains on two mini-batches (two forward passes, one summed loss), and the
second batch's neurons begin charged by the first batch's inputs - a state that never
occurs at test time, when every batch starts from rest. It runs, and the loss falls.

Reported: "Question about functional.reset_net" -
https://github.com/fangwei123456/spikingjelly/issues/318 (the reporter asked whether
``reset_net`` belongs after every ``out = model(x)`` or after ``optimizer.step()`` when
the model is run twice in one step; the maintainer recommended resetting after the step
for one forward, and for the two forwards "out_2 will be wrong", because the second
forward starts from the first's neuron state: reset between them). Here: rate-coded 8x8
digits over 5 time steps, a 64-unit LIF layer and 10 LIF outputs (decay 0.98, fast-sigmoid
surrogate, reset by subtraction, membranes kept on the module between calls), two
batches of 32 per step, cross-entropy on the output spike counts, Adam; held-out batches
each start from rest. Fix: ``reset()`` between the two forward passes.

Measured (300 steps, 297 held-out digits, accuracy of the most-spiking output neuron):
seed 0: held-out accuracy 0.86 for the bug against 0.94 for the fixed twin; seeds
shifted by 1000: 0.86 against 0.93.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._snn import SpikingMLP, digits_split, rate_code, spike_count_accuracy

TITLE = "Question about functional.reset_net"
LINK = "https://github.com/fangwei123456/spikingjelly/issues/318"
EXPECTED = ("STATE_CARRIED_ACROSS_BATCHES",)
STEPS = 300
TIME_STEPS = 5
HALF = 32


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = digits_split()
    model = SpikingMLP(beta=0.98, stateful=True)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, batch_size=2 * HALF):
            spk_a, _ = model(rate_code(xb[:HALF], TIME_STEPS))
            if fixed:
                model.reset()
            # BUG when not fixed: the second forward starts from the first's membranes
            spk_b, _ = model(rate_code(xb[HALF:], TIME_STEPS))
            loss = loss_fn(spk_a.sum(0), yb[:HALF]) + loss_fn(spk_b.sum(0), yb[HALF:])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            model.reset()
            mon.step(loss)
    mon.held_out_accuracy = spike_count_accuracy(model, x_test, y_test, TIME_STEPS,
                                                 batch_size=99)
    return mon

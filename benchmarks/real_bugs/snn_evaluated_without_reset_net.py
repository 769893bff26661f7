"""A stateful spiking network evaluated without resetting its neurons between batches:
the training loop calls the reset after every optimizer step, but the evaluation loop
(under no_grad, with no optimizer) leaves it out, so every held-out batch starts from the
membrane potentials the previous batch left behind. The same model gives different
outputs for the same input depending on what it saw before, and the reported held-out
accuracy is lower than the trained network's - silently: nothing errors, and training
itself is untouched.

Reported: "Same net and same input data, but different output" -
https://github.com/fangwei123456/spikingjelly/issues/267 (the reporter's trained SNN,
under net.eval(), gave different outputs for the same input on each call; the maintainer
asked "I guess that you forget to call functional.reset_net(net) after one forward?" and
the reporter answered "Yes, it's that. I thought that sentence is only for training").
Here: rate-coded 8x8 digits over 5 time steps, a 64-unit LIF layer and 10 LIF outputs
(decay 0.98, fast-sigmoid surrogate, reset by subtraction, membranes kept on the module
between calls), cross-entropy on the output spike counts, Adam, the reset after every
step; the held-out digits evaluated in 11 batches of 27. Fix: reset before every
evaluation batch as well.

Measured (300 steps, batch 64, 297 held-out digits, accuracy of the most-spiking output
neuron as the evaluation loop computes it): seed 0: held-out accuracy 0.44 for the bug
against 0.94 for the fixed twin; seeds shifted by 1000: 0.44 against 0.93. Training is
the same in both runs: only the evaluation differs.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._snn import SpikingMLP, digits_split, rate_code, spike_count_accuracy

TITLE = "Same net and same input data, but different output"
LINK = "https://github.com/fangwei123456/spikingjelly/issues/267"
EXPECTED = ("STATE_CARRIED_ACROSS_BATCHES",)
STEPS = 300
TIME_STEPS = 5
EVAL_BATCH = 27


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, x_test, y_test = digits_split()
    model = SpikingMLP(beta=0.98, stateful=True)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps):
            spk, _ = model(rate_code(xb, TIME_STEPS))
            loss = loss_fn(spk.sum(0), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            model.reset()           # reset_net after every training step
            mon.step(loss)
    model.eval()
    # BUG when not fixed: no reset between evaluation batches
    mon.held_out_accuracy = spike_count_accuracy(model, x_test, y_test, TIME_STEPS,
                                                 batch_size=EVAL_BATCH, reset_between=fixed)
    return mon

"""Real-bug batch 207 (spiking networks trained with surrogate gradients): class scores
that are spike counts - whole numbers, many classes at 0 spikes - tie at 0 as discrete
values do, and are not logits cut by a ReLU (DEAD_RELU's floored-logits check). A ReLU
on real logits, and an output dead for every sample, are still floored."""
import numpy as np
import pytest

import nndebug as nd
from nndebug.monitor.loss_capture import floored_scores

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import minigrad as mg  # noqa: E402
import minigrad.nn as mnn  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
STEPS, TIME_STEPS, SLOPE = 40, 6, 4.0


def codes(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def data():
    g = np.random.default_rng(0)
    x = g.standard_normal((512, 8)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int64) + (x[:, 1] > 0).astype(np.int64) + \
        2 * (x[:, 2] > 0).astype(np.int64)
    noise = 0.5 * g.standard_normal((TIME_STEPS, 512, 5)).astype(np.float32)
    return x, y, noise


def test_whole_number_counts_are_not_a_floor_but_relu_logits_and_dead_outputs_are():
    g = np.random.default_rng(0)
    counts = g.integers(0, 4, (64, 10)).astype(np.float32)
    counts[:, [2, 5]] = 0                       # silent output neurons tie at 0 spikes
    assert floored_scores(counts) == (0.0, 0)
    logits = g.standard_normal((64, 10)).astype(np.float32)
    logits[:, [2, 5]] = -3.0
    rows, units = floored_scores(np.maximum(logits, 0))
    assert rows == 1.0 and units == 2           # a ReLU on real logits: still floored
    rows, units = floored_scores(np.zeros((64, 10), np.float32))
    assert rows == 1.0 and units == 10          # an output dead for every sample: still floored


class SpikeST(torch.autograd.Function):
    @staticmethod
    def forward(ctx, u):
        ctx.save_for_backward(u)
        return (u > 0).float()

    @staticmethod
    def backward(ctx, grad):
        (u,) = ctx.saved_tensors
        s = torch.sigmoid(SLOPE * u)
        return grad * SLOPE * s * (1 - s)


def test_spike_count_scores_torch_silent_and_relu_logits_named():
    x, y, noise = data()
    for planted in (False, True):
        torch.manual_seed(0)
        model = nn.Linear(8, 5)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
        with nd.watch(model, optimizer, overhead=None) as mon:
            for i in range(STEPS):
                j = (i * 32) % (len(x) - 32)
                u = model(torch.from_numpy(x[j:j + 32]))
                if planted:     # real logits through a ReLU before the loss
                    scores = torch.relu(u - 0.5)
                else:           # spike counts over the time steps
                    scores = sum(SpikeST.apply(u + torch.from_numpy(noise[t, j:j + 32]))
                                 for t in range(TIME_STEPS))
                loss = nn.functional.cross_entropy(scores, torch.from_numpy(y[j:j + 32]))
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                mon.step(loss)
        assert ("DEAD_RELU" in codes(mon)) == planted, codes(mon)


def test_spike_count_scores_minigrad_silent_and_relu_logits_named():
    x, y, noise = data()
    for planted in (False, True):
        mg.manual_seed(0)
        model = mnn.Sequential(mnn.Linear(8, 5))
        optimizer = mg.optim.SGD(model.parameters(), lr=0.05)
        ce = mnn.CrossEntropyLoss()
        with nd.watch(model, optimizer, overhead=None) as mon:
            for i in range(STEPS):
                j = (i * 32) % (len(x) - 32)
                u = model(mg.tensor(x[j:j + 32]))
                if planted:
                    scores = (u - 0.5).relu()
                else:   # straight-through spikes: a Heaviside forward, a sigmoid's gradient
                    scores = None
                    for t in range(TIME_STEPS):
                        soft = ((u + mg.tensor(noise[t, j:j + 32])) * SLOPE).sigmoid()
                        hard = (u.numpy() + noise[t, j:j + 32] > 0).astype(np.float32)
                        spike = soft + mg.tensor(hard - soft.numpy())
                        scores = spike if scores is None else scores + spike
                loss = ce(scores, mg.tensor(y[j:j + 32]))
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                mon.step(loss)
        assert ("DEAD_RELU" in codes(mon)) == planted, codes(mon)

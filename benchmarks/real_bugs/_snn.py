"""Spiking-network pieces batch 207's cases share: leaky integrate-and-fire (LIF) neurons
written out in torch with a surrogate gradient (a Heaviside spike forward, a smooth or
rectangular pseudo-derivative backward), rate-coded digits (each pixel's intensity is the
probability of a spike at every time step), and a two-layer spiking MLP that can keep
its membrane potentials between calls the way spikingjelly's neurons do (cleared by
``reset()``, spikingjelly's ``functional.reset_net``)."""
import torch
from torch import nn

from benchmarks.real_bugs._common import classification


class FastSigmoidSpike(torch.autograd.Function):
    """Heaviside forward; backward 1 / (1 + slope |u|)^2 (snntorch's fast_sigmoid)."""

    @staticmethod
    def forward(ctx, u, slope):
        ctx.save_for_backward(u)
        ctx.slope = slope
        return (u > 0).to(u.dtype)

    @staticmethod
    def backward(ctx, grad):
        (u,) = ctx.saved_tensors
        return grad / (1 + ctx.slope * u.abs()) ** 2, None


class RectangularSpike(torch.autograd.Function):
    """Heaviside forward; backward 1/width inside |u| < width/2, 0 outside (STBP's)."""

    @staticmethod
    def forward(ctx, u, width):
        ctx.save_for_backward(u)
        ctx.width = width
        return (u > 0).to(u.dtype)

    @staticmethod
    def backward(ctx, grad):
        (u,) = ctx.saved_tensors
        return grad * (u.abs() < ctx.width / 2).to(u.dtype) / ctx.width, None


def fast_sigmoid(u, slope=25.0):
    return FastSigmoidSpike.apply(u, slope)


def rectangular(u, width=0.5):
    return RectangularSpike.apply(u, width)


def lif_step(mem, current, beta=0.9, threshold=1.0, spike_fn=fast_sigmoid):
    """One step of a LIF neuron with reset by subtraction: (spikes, new membrane)."""
    mem = beta * mem + current
    spk = spike_fn(mem - threshold)
    return spk, mem - spk.detach() * threshold


def rate_code(x, steps):
    """Bernoulli spike trains (steps, N, features) with each feature's value as its
    per-step spike probability (snntorch's spikegen.rate)."""
    return (torch.rand(steps, *x.shape) < x.unsqueeze(0)).float()


def digits_split(held_out=297):
    """The 8x8 digits shuffled by torch's generator: (x_train, y_train, x_test, y_test)."""
    x, y = classification()
    order = torch.randperm(len(x))
    x, y = x[order], y[order]
    return x[held_out:], y[held_out:], x[:held_out], y[:held_out]


class SpikingMLP(nn.Module):
    """64 -> hidden LIF -> 10 LIF, run over a (steps, B, 64) spike train; returns the
    output spikes and output membranes, each (steps, B, 10). ``stateful``: membranes are
    kept on the module between calls until ``reset()`` (spikingjelly's neurons)."""

    def __init__(self, hidden=64, beta=0.9, threshold=1.0, out_threshold=None,
                 spike_fn=fast_sigmoid, stateful=False):
        super().__init__()
        self.fc1 = nn.Linear(64, hidden)
        self.fc2 = nn.Linear(hidden, 10)
        self.beta, self.threshold, self.spike_fn = beta, threshold, spike_fn
        self.out_threshold = threshold if out_threshold is None else out_threshold
        self.stateful = stateful
        self.reset()

    def reset(self):
        self.mem1 = self.mem2 = None

    def forward(self, spikes):
        steps, batch = spikes.shape[:2]
        mem1 = self.mem1 if self.stateful and self.mem1 is not None else \
            torch.zeros(batch, self.fc1.out_features)
        mem2 = self.mem2 if self.stateful and self.mem2 is not None else torch.zeros(batch, 10)
        out_spikes, out_mems = [], []
        for t in range(steps):
            spk1, mem1 = lif_step(mem1, self.fc1(spikes[t]), self.beta, self.threshold,
                                  self.spike_fn)
            spk2, mem2 = lif_step(mem2, self.fc2(spk1), self.beta, self.out_threshold,
                                  self.spike_fn)
            out_spikes.append(spk2)
            out_mems.append(mem2)
        if self.stateful:
            self.mem1, self.mem2 = mem1, mem2
        return torch.stack(out_spikes), torch.stack(out_mems)


def spike_count_accuracy(model, x, y, steps, batch_size=None, reset_between=True):
    """Held-out accuracy of the most-spiking output neuron (ties to the highest membrane
    sum), under no_grad; ``reset_between``: clear stateful membranes before each batch."""
    batch_size = batch_size or len(x)
    correct = 0
    with torch.no_grad():
        model.reset()
        for start in range(0, len(x), batch_size):
            if reset_between:
                model.reset()
            xb, yb = x[start:start + batch_size], y[start:start + batch_size]
            spk, mem = model(rate_code(xb, steps))
            score = spk.sum(0) + 1e-3 * torch.tanh(mem.sum(0))
            correct += (score.argmax(1) == yb).sum().item()
        model.reset()
    return correct / len(x)

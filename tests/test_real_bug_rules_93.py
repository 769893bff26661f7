"""Real-bug batch 93 (custom torch.autograd.Function classes and hand-written backward
passes). Two of the five reports are named by watch as it was (NO_GRADIENT): a quantizer's
round behind a stop-gradient, binarized weights behind sign() with no straight-through
backward. The other three are KNOWN_MISSES (reasons in tests/test_real_bugs.py): the
gradient reversal layer negated twice, the center-loss Function summed over the batch, the
subtraction whose backward keeps the subtrahend's sign. No rule was added for this batch.

These tests hold the two named causes in variants (a convolutional autoencoder with the
stop-gradient quantizer, binarized convolutions) and keep the deliberate custom backwards a
careless rule would flag silent: a straight-through quantizer, a gradient reversal layer
that does reverse (DANN as the paper has it), an identity Function that scales the gradient
by a positive factor, a hand-written ReLU whose backward is right."""
import math

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from benchmarks.real_bugs import binarized_weights_sign_without_straight_through as binarized  # noqa: E402,E501
from benchmarks.real_bugs import gradient_reversal_coefficient_negated_twice as dann  # noqa: E402,E501
from benchmarks.real_bugs import quantizer_round_stops_encoder_gradient as quantizer  # noqa: E402,E501
from benchmarks.real_bugs._common import batches, classification, train_watched  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
STEPS = 120


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


# --- the planted cases that are named, and their twins ---------------------------------------

def test_stop_gradient_quantizer_names_the_encoder():
    found = [f for f in quantizer.run(steps=STEPS).findings() if f.code == "NO_GRADIENT"]
    assert found and found[0].severity in PROBLEMS
    assert "encoder" in found[0].where
    assert not _problems(quantizer.run(fixed=True, steps=STEPS))


def test_sign_without_straight_through_names_the_binarized_layers():
    found = [f for f in binarized.run(steps=STEPS).findings() if f.code == "NO_GRADIENT"]
    assert found and found[0].severity in PROBLEMS
    assert not _problems(binarized.run(fixed=True, steps=STEPS))


# --- variants -------------------------------------------------------------------------------

class ConvQuantizedAutoencoder(nn.Module):
    """A convolutional encoder to a 4-channel 4x4 code, quantized, and a decoder back."""

    def __init__(self, straight_through):
        super().__init__()
        self.straight_through = straight_through
        self.encoder = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(),
                                     nn.Conv2d(8, 4, 3, stride=2, padding=1))
        self.decoder = nn.Sequential(nn.ConvTranspose2d(4, 8, 2, stride=2), nn.ReLU(),
                                     nn.Conv2d(8, 1, 3, padding=1))

    def forward(self, x):
        z = self.encoder(x) * 4
        if self.straight_through:
            code = quantizer.RoundStraightThrough.apply(z)
        else:
            code = torch.round(z).detach()
        return self.decoder(code / 4)


def _autoencoder_run(straight_through):
    torch.manual_seed(0)
    x, _ = classification(images=True)
    model = ConvQuantizedAutoencoder(straight_through)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    return train_watched(model, optimizer, nn.MSELoss(),
                         ((xb, xb) for xb, _ in batches(x, x, STEPS)))


def test_conv_autoencoder_stop_gradient_variant():
    found = [f for f in _autoencoder_run(False).findings() if f.code == "NO_GRADIENT"]
    assert found and "encoder" in found[0].where
    assert not _problems(_autoencoder_run(True))


class BinaryConv(nn.Conv2d):
    def __init__(self, inputs, outputs, straight_through):
        super().__init__(inputs, outputs, 3, padding=1, bias=False)
        self.straight_through = straight_through

    def forward(self, x):
        sign = binarized.SignStraightThrough.apply if self.straight_through else torch.sign
        return nn.functional.conv2d(x, sign(self.weight) / 3, padding=1)


def _binary_cnn_run(straight_through):
    torch.manual_seed(0)
    x, y = classification(images=True)
    model = nn.Sequential(BinaryConv(1, 8, straight_through), nn.BatchNorm2d(8), nn.ReLU(),
                          nn.MaxPool2d(2), nn.Flatten(), nn.Linear(8 * 16, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, STEPS))


def test_binarized_conv_variant():
    found = [f for f in _binary_cnn_run(False).findings() if f.code == "NO_GRADIENT"]
    assert found and found[0].where.startswith("0")
    assert not _problems(_binary_cnn_run(True))


# --- deliberate custom backwards that must stay silent --------------------------------------

class ScaleGradient(torch.autograd.Function):
    """Identity forward; the gradient multiplied by a positive factor (a branch slowed)."""

    @staticmethod
    def forward(ctx, x, factor):
        ctx.factor = factor
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.factor, None


class HandWrittenReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clamp(min=0)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        grad = grad_output.clone()
        grad[x < 0] = 0
        return grad


class SlowedBranchNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Linear(64, 64)
        self.head = nn.Linear(64, 10)

    def forward(self, x):
        hidden = HandWrittenReLU.apply(self.stem(x))
        return self.head(ScaleGradient.apply(hidden, 0.3))


def test_gradient_scaling_and_hand_written_relu_stay_silent():
    torch.manual_seed(0)
    x, y = classification()
    model = SlowedBranchNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, STEPS))
    assert not _problems(mon)


def test_reversal_that_reverses_stays_silent_and_adapts():
    """DANN as the paper has it (the twin): silent, and the reversal does its job - the
    domain term stays far from zero where the double negation drives it to zero."""
    assert dann.coefficient(0.5, fixed=True) > 0 > dann.coefficient(0.5, fixed=False)
    assert math.isclose(dann.coefficient(0.0, fixed=True), 0.0, abs_tol=1e-12)
    assert not _problems(dann.run(fixed=True, steps=STEPS))


def test_reversal_backward_sign():
    """The layer itself: identity forward, -coefficient x grad_output backward."""
    x = torch.randn(5, 3, requires_grad=True)
    out = dann.GradientReversal.apply(x, 0.25)
    assert torch.equal(out, x)
    out.backward(torch.ones_like(out))
    assert torch.allclose(x.grad, torch.full_like(x, -0.25))

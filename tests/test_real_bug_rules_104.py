"""Real-bug batch 104 (mixture-of-experts, gating and routing): the two reports watch names
with the rules it has - a top-1 gate that softmaxes its single selected logit (the gate value
is always 1, the gating weights get an exact zero gradient: SOFTMAX_OVER_ONE_UNIT, with
NO_GRADIENT), and a noisy gate whose noise scale is read from the gating weights, leaving
the noise weights unused (NO_GRADIENT). Variants: another expert count, SGD, an nn.Linear
noise layer. Fixed twins silent, and the healthy look-alike a careless rule would flag: a
top-2 gate that softmaxes its two selected logits (Mixtral's own routing). The batch's three
other reports are KNOWN_MISSES in tests/test_real_bugs.py, with the reasons."""
import warnings

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

from benchmarks.real_bugs import moe_noise_scale_read_from_gate_weights as noise_case  # noqa: E402,E501
from benchmarks.real_bugs import moe_top1_gate_softmax_over_single_logit as single  # noqa: E402
from benchmarks.real_bugs._common import batches, classification, train_watched  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
STEPS = 120


def _problems(mon):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {f.code for f in mon.findings() if f.severity in PROBLEMS}


class TopKGate(nn.Module):
    """A gated mixture of linear experts; ``softmax_over`` says what the gate softmaxes:
    'selected' (the k chosen logits) or 'all' (every expert's logit, then the chosen ones)."""

    def __init__(self, experts, k, softmax_over, noise_layer=False):
        super().__init__()
        self.k, self.softmax_over = k, softmax_over
        self.gate = nn.Linear(64, experts, bias=False)
        self.noise = nn.Linear(64, experts) if noise_layer else None
        self.experts = nn.ModuleList(nn.Linear(64, 10) for _ in range(experts))

    def forward(self, x):
        logits = self.gate(x)
        if self.noise is not None and self.training:
            # the noise scale read from the gate, as in the report: self.noise never used
            logits = logits + torch.randn_like(logits) * F.softplus(self.gate(x))
        if self.softmax_over == "selected":
            top, index = logits.topk(self.k, dim=1)
            value = torch.softmax(top, dim=1)
        else:
            value, index = torch.softmax(logits, dim=1).topk(self.k, dim=1)
        gates = torch.zeros_like(logits).scatter(1, index, value)
        every = torch.stack([expert(x) for expert in self.experts], dim=1)
        return (gates[:, :, None] * every).sum(1)


def _run(model, optimizer_class=torch.optim.Adam, lr=2e-3):
    torch.manual_seed(0)
    x, y = classification()
    optimizer = optimizer_class(model.parameters(), lr=lr)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, STEPS))


# --- the planted cases and their twins -----------------------------------------------------

def test_top1_gate_softmaxed_over_its_single_logit_is_named():
    found = _problems(single.run(steps=STEPS))
    assert "SOFTMAX_OVER_ONE_UNIT" in found
    assert not _problems(single.run(fixed=True, steps=STEPS))


def test_noise_scale_read_from_the_gate_leaves_the_noise_weights_without_gradient():
    mon = noise_case.run(steps=STEPS)
    assert "NO_GRADIENT" in _problems(mon)
    assert mon.extra["w_noise_norm"] == 0.0        # never moved: the harm the report names
    assert not _problems(noise_case.run(fixed=True, steps=STEPS))


# --- variants ------------------------------------------------------------------------------

def test_single_logit_softmax_named_with_other_experts_and_sgd():
    torch.manual_seed(1)
    model = TopKGate(experts=3, k=1, softmax_over="selected")
    assert "SOFTMAX_OVER_ONE_UNIT" in _problems(_run(model, torch.optim.SGD, lr=0.1))


def test_unused_noise_layer_is_named():
    torch.manual_seed(2)
    model = TopKGate(experts=4, k=2, softmax_over="all", noise_layer=True)
    assert "NO_GRADIENT" in _problems(_run(model))


# --- healthy look-alikes -------------------------------------------------------------------

def test_top2_gate_softmaxed_over_its_two_selected_logits_is_silent():
    """Mixtral softmaxes its top-2 logits: a softmax over two values is a real choice."""
    torch.manual_seed(3)
    model = TopKGate(experts=4, k=2, softmax_over="selected")
    assert not _problems(_run(model))


def test_top1_gate_with_the_probability_over_all_experts_is_silent():
    torch.manual_seed(4)
    model = TopKGate(experts=4, k=1, softmax_over="all")
    assert not _problems(_run(model, torch.optim.SGD, lr=0.1))

"""Real-bug batch 106 (quantization-aware training, fake quantization and low-bit weights
written by users): quantized or binarized values written into the trained parameters
themselves before every optimizer step - 4-bit weights requantized in place without a float
copy (IntelLabs/distiller#362), BinaryNet's copy trick without restoring the real weights
(itayhubara/BinaryNet.pytorch#19), 8-bit convolution weights overwritten by their quantized
copy (eladhoffer/quantized.pytorch#12) - named WEIGHTS_REQUANTIZED_IN_PLACE from
``run.observed.weights_on_grid`` (``monitor/rewritten_weights.py``, read by
``rules/requantized_weights.py``). Variants: 2-bit weights under SGD, ternary weights written
in place with ``copy_`` (the storage kept), a binarized CNN. Fixed twins silent, and the
healthy look-alikes: WGAN weight clipping, a pruning mask applied after every step, a
max-norm constraint, straight-through quantization-aware training done right. The grid test
and the rule on hand-made rows, and the rows saved and read back."""
import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import binarized_step_without_restoring_real_weights as binary  # noqa: E402,E501
from benchmarks.real_bugs import conv_weights_overwritten_by_8bit_copy as conv8  # noqa: E402
from benchmarks.real_bugs import weights_requantized_in_place_without_float_copy as four  # noqa: E402,E501
from benchmarks.real_bugs._common import batches, classification, train_watched  # noqa: E402
from nndebug.monitor.rewritten_weights import grid_writes, on_grid  # noqa: E402
from nndebug.observed import Observed  # noqa: E402
from nndebug.rules.requantized_weights import GRID_MIN_STEPS  # noqa: E402
from nndebug.rules.requantized_weights import weights_requantized_in_place  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
CODE = "WEIGHTS_REQUANTIZED_IN_PLACE"
STEPS = 80


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity != "info"}


# --- the batch's cases and their fixed twins -----------------------------------------------

@pytest.mark.parametrize("case", [four, binary, conv8], ids=["4bit", "binary", "conv8bit"])
def test_planted_case_named_and_twin_silent(case):
    assert CODE in _codes(case.run(steps=STEPS))
    assert CODE not in _codes(case.run(fixed=True, steps=STEPS))


# --- variants -------------------------------------------------------------------------------

def _quantize(w, bits):
    levels = 2 ** (bits - 1) - 1
    scale = w.abs().max().clamp_min(1e-8) / levels
    return torch.clamp(torch.round(w / scale), -levels, levels) * scale


def _ternary(w):
    """TWN-style ternary weights: 0 below 0.7 mean|w|, +-mean of the rest above."""
    threshold = 0.7 * w.abs().mean()
    kept = w.abs() > threshold
    alpha = w.abs()[kept].mean() if kept.any() else w.new_tensor(0.0)
    return torch.sign(w) * kept * alpha


class _WrittenLinear(nn.Linear):
    """A linear layer whose forward writes ``write(weight)`` into the parameter: by
    swapping its storage (``.data =``) or in place (``copy_``)."""

    def __init__(self, inputs, outputs, write, in_place):
        super().__init__(inputs, outputs)
        self.write, self.in_place = write, in_place

    def forward(self, x):
        with torch.no_grad():
            if self.in_place:
                self.weight.copy_(self.write(self.weight))
            else:
                self.weight.data = self.write(self.weight.data)
        return nn.functional.linear(x, self.weight, self.bias)


def _mlp_run(write, in_place=False, optimizer="adam", after_step=None):
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(_WrittenLinear(64, 32, write, in_place), nn.ReLU(), nn.Linear(32, 10))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3) if optimizer == "adam" else \
        torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, opt) as mon:
        for xb, yb in batches(x, y, STEPS):
            opt.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
            if after_step is not None:
                after_step(model)
            mon.step(loss)
    return mon


def test_two_bit_weights_under_sgd():
    assert CODE in _codes(_mlp_run(lambda w: _quantize(w, 2), optimizer="sgd"))


def test_ternary_weights_written_in_place():
    assert CODE in _codes(_mlp_run(_ternary, in_place=True))


def test_binarized_cnn_without_restore():
    class BinaryConv(nn.Conv2d):
        def forward(self, x):
            if not hasattr(self.weight, "org"):
                self.weight.org = self.weight.data.clone()
            self.weight.data = torch.where(self.weight.org >= 0, 1.0, -1.0)
            return self._conv_forward(x, self.weight / 3, self.bias)

    torch.manual_seed(0)
    x, y = classification(images=True)
    model = nn.Sequential(BinaryConv(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                          nn.Flatten(), nn.Linear(8 * 64, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

    class _Clamped:        # the second half of the copy trick only: org <- clamp(data)
        def zero_grad(self):
            opt.zero_grad()

        def step(self):
            opt.step()
            for p in model.parameters():
                if hasattr(p, "org"):
                    p.org.copy_(p.data.clamp_(-1, 1))

    mon = train_watched(model, opt, nn.CrossEntropyLoss(), batches(x, y, STEPS),
                        stepped_by=_Clamped())
    assert CODE in _codes(mon)


# --- healthy look-alikes --------------------------------------------------------------------

def test_weight_clipping_every_step_is_silent():
    def clip(model):
        with torch.no_grad():
            model[0].weight.clamp_(-0.05, 0.05)
    assert CODE not in _codes(_mlp_run(lambda w: w, after_step=clip))


def test_pruning_mask_after_every_step_is_silent():
    mask = (torch.rand(32, 64, generator=torch.Generator().manual_seed(1)) > 0.5).float()

    def prune(model):
        with torch.no_grad():
            model[0].weight.mul_(mask)
    assert CODE not in _codes(_mlp_run(lambda w: w, after_step=prune))


def test_max_norm_constraint_is_silent():
    def renorm(model):
        with torch.no_grad():
            model[0].weight.copy_(torch.renorm(model[0].weight, 2, 0, 0.5))
    assert CODE not in _codes(_mlp_run(lambda w: w, after_step=renorm))


def test_straight_through_quantization_aware_training_is_silent():
    class SteLinear(nn.Linear):
        def forward(self, x):
            w = self.weight + (_quantize(self.weight, 4) - self.weight).detach()
            return nn.functional.linear(x, w, self.bias)

    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(SteLinear(64, 32), nn.ReLU(), SteLinear(32, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    mon = train_watched(model, opt, nn.CrossEntropyLoss(), batches(x, y, STEPS))
    assert CODE not in _codes(mon)


# --- the grid test, the measurement and the rule on hand-made rows -------------------------

def test_on_grid():
    step = 0.0371
    assert on_grid(np.array([3, -1, 0, 7, -7, 2, 5, -4], dtype=np.float32) * step)
    assert on_grid(np.array([2, 4, -6, 10], dtype=np.float64) * step)   # smallest is 2 steps
    assert on_grid(np.array([1.0, -1.0, 1.0, 1.0]))                     # sign()
    rng = np.random.default_rng(0)
    assert not on_grid(rng.normal(size=16).astype(np.float32))          # float weights
    assert not on_grid(np.zeros(16))                                    # nothing nonzero
    assert not on_grid(np.array([0.0, 0.0, 0.3]))                       # one value only


def test_grid_writes_on_hand_made_rows():
    rng = np.random.default_rng(0)
    grid = np.tile(np.round(rng.normal(size=16) * 3) * 0.05, (30, 1))   # frozen on a grid
    update = rng.normal(size=(30, 16)) * 0.001
    steps, written, before, after, kept = grid_writes(grid, grid + update)[0]
    assert (steps, written, before, after) == (30, 1.0, 1.0, 0.0)
    assert kept == 0.0                                             # every update undone
    floats = rng.normal(size=(30, 16))
    stepped = floats + update
    floats[1:] = stepped[:-1]                                      # no write between steps
    assert grid_writes(floats, stepped) == []
    floats[1:, 0] = np.clip(floats[1:, 0], -0.5, 0.5)              # one entry clipped: a write
    steps, written, before, after, kept = grid_writes(floats, stepped)[0]
    assert written > 0 and before == after == 0.0 and kept > 0.5
    assert grid_writes(grid[:2], grid[:2]) == []


class _Ctx:
    def __init__(self, rows):
        self.run = type("Run", (), {"observed": Observed()})()
        self.run.observed.weights_on_grid = rows


def test_rule_on_hand_made_rows():
    assert weights_requantized_in_place(_Ctx([(300, 1.0, 1.0, 0.0, 0.1)])).code == CODE
    assert weights_requantized_in_place(_Ctx([])) is None
    assert weights_requantized_in_place(_Ctx([(GRID_MIN_STEPS - 1, 1.0, 1.0, 0.0, 0.1)])) is None
    assert weights_requantized_in_place(_Ctx([(300, 0.5, 1.0, 0.0, 0.1)])) is None   # few writes
    assert weights_requantized_in_place(_Ctx([(300, 1.0, 0.5, 0.0, 0.1)])) is None   # off grid
    assert weights_requantized_in_place(_Ctx([(300, 1.0, 1.0, 0.9, 0.1)])) is None   # stays on


def test_rows_saved_and_loaded_are_judged_alike():
    from nndebug import runfile
    mon = four.run(steps=30)
    mon.findings()                     # the rows are read when findings are asked for
    text = json.dumps(runfile._encode_observed(mon.run.observed), allow_nan=False)
    back = runfile.decode_observed(json.loads(text))
    assert back.weights_on_grid == mon.run.observed.weights_on_grid
    assert back.weights_on_grid and isinstance(back.weights_on_grid[0], tuple)


def test_parameter_cast_mid_run_ends_the_window_quietly():
    """``model.double()`` mid-run swaps every parameter's storage for another dtype: the
    weights observer stops following there, without an error of its own (the rows no longer
    compare), and the model is left as the user made it."""
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, opt) as mon:
        for i, (xb, yb) in enumerate(batches(x, y, 30)):
            if i == 20:
                model.double()
            opt.zero_grad()
            loss = loss_fn(model(xb.double() if i >= 20 else xb), yb)
            loss.backward()
            opt.step()
            mon.step(loss)
        observer = mon.rewritten_weights
        assert observer.enabled and not observer._sampling and len(observer._steps) == 20
    assert CODE not in {f.code for f in mon.findings()}
    assert model[0].weight.dtype == torch.float64

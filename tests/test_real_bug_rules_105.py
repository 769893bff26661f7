"""Real-bug batch 105 (super-resolution, image restoration, image-to-image models): a
per-sample normalisation feeding the model's final tanh or sigmoid
(OUTPUT_NORMALISED_BEFORE_SQUASH, ``nndebug/rules/output_norms.py``), and dead units of the
model's output ReLU named as a warning even while the live outputs learn (DEAD_RELU,
``nndebug/rules/signal_flow.py``). Variants: a layer norm before a sigmoid in an MLP
autoencoder, a group norm before a tanh in a CNN. Fixed twins silent, and the healthy
look-alikes a careless rule would flag: batch norm before the tanh (it pins the batch, not
each sample), instance norm in the hidden blocks only, a layer norm followed by a linear
head and then the sigmoid, a model that registers a norm and a tanh last but uses them
inside (its output is unbounded), a final ReLU whose outputs all stay alive."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import image_box_regressor_ends_in_relu as box  # noqa: E402
from benchmarks.real_bugs import translation_generator_normalises_before_tanh as translator  # noqa: E402,E501
from benchmarks.real_bugs._common import batches, classification  # noqa: E402
from nndebug.rules.output_norms import _norm_then_squash  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
CODE = "OUTPUT_NORMALISED_BEFORE_SQUASH"


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _reconstruct(model, images=False, steps=60, target=lambda x: x, loss=F.mse_loss,
                 seed=0):
    """A watched autoencoder-style run: the model maps the digits to ``target(digits)``."""
    torch.manual_seed(seed)
    x, y = classification(images=images)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer) as mon:
        for xb, _ in batches(x, y, steps, seed=seed):
            out = loss(model(xb), target(xb))
            optimizer.zero_grad()
            out.backward()
            optimizer.step()
            mon.step(out)
    return mon


# --- the planted case and its twin ---------------------------------------------------------

def test_instance_norm_before_tanh_is_named():
    found = [f for f in translator.run(steps=80).findings() if f.code == CODE]
    assert found and found[0].severity == "warning"
    assert found[0].evidence["norm_type"] == "InstanceNorm2d"
    assert found[0].evidence["output_kind"] == "tanh"
    assert CODE not in _problems(translator.run(fixed=True, steps=80))


# --- variants: other norms, squashes, models --------------------------------------------

def test_layer_norm_before_sigmoid_in_an_mlp_is_named():
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 64), nn.LayerNorm(64),
                          nn.Sigmoid())
    found = [f for f in _reconstruct(model).findings() if f.code == CODE]
    assert found and found[0].evidence["norm_type"] == "LayerNorm"
    assert found[0].where == "3"


def test_group_norm_before_tanh_in_a_cnn_is_named():
    model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 4, 3, padding=1),
                          nn.GroupNorm(2, 4), nn.Dropout(0.0), nn.Tanh())
    mon = _reconstruct(model, images=True, target=lambda x: (x * 2 - 1).repeat(1, 4, 1, 1),
                       loss=F.l1_loss)
    assert CODE in _problems(mon)


# --- healthy look-alikes ------------------------------------------------------------------

def test_batch_norm_before_tanh_is_left_alone():
    model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 1, 3, padding=1),
                          nn.BatchNorm2d(1), nn.Tanh())
    assert CODE not in {f.code for f in _reconstruct(model, images=True).findings()}


def test_norms_in_hidden_blocks_only_are_left_alone():
    model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.InstanceNorm2d(8, affine=True),
                          nn.ReLU(), nn.Conv2d(8, 1, 3, padding=1), nn.Tanh())
    assert CODE not in {f.code for f in _reconstruct(model, images=True).findings()}


def test_layer_norm_then_linear_head_then_sigmoid_is_left_alone():
    model = nn.Sequential(nn.Linear(64, 32), nn.LayerNorm(32), nn.ReLU(), nn.Linear(32, 64),
                          nn.Sigmoid())
    assert CODE not in {f.code for f in _reconstruct(model).findings()}


class _NormUsedInside(nn.Module):
    """Registers its head first and the norm and tanh last, but the tanh sits inside: the
    output is the linear head's, unbounded (registration order is not forward order)."""

    def __init__(self):
        super().__init__()
        self.body = nn.Linear(64, 32)
        self.head = nn.Linear(32, 64)
        self.norm = nn.LayerNorm(32)
        self.act = nn.Tanh()

    def forward(self, x):
        return self.head(self.act(self.norm(self.body(x))))


def test_norm_and_tanh_registered_last_but_used_inside_are_left_alone():
    mon = _reconstruct(_NormUsedInside(), target=lambda x: (x - 0.3) * 4)
    assert _norm_then_squash(mon.run.layers) is not None     # the order alone would say so
    assert CODE not in {f.code for f in mon.findings()}


# --- DEAD_RELU on the model's output ReLU -------------------------------------------------

def test_dead_output_relu_is_a_warning():
    found = [f for f in box.run(steps=150).findings() if f.code == "DEAD_RELU"]
    assert found and found[0].severity == "warning"
    assert found[0].evidence["output_layer"] is True
    assert "model's output" in found[0].message
    assert "DEAD_RELU" not in _problems(box.run(fixed=True, steps=150))


def test_final_relu_with_live_outputs_is_left_alone(monkeypatch):
    monkeypatch.setattr(box, "SEED", 10)      # no output negative for every digit at the start
    assert "DEAD_RELU" not in _problems(box.run(steps=150))


# --- minigrad: the same layer names, the same loss-call ranges -----------------------------

def _minigrad_reconstruction(norm_last, steps=30):
    import numpy as np
    import minigrad as mg
    import minigrad.nn as mnn
    import minigrad.optim as moptim
    mg.manual_seed(0)
    x, _ = classification()
    x = mg.tensor(x.numpy()[:256])
    layers = [mnn.Linear(64, 32), mnn.ReLU(), mnn.Linear(32, 64)]
    layers += [mnn.LayerNorm(64), mnn.Sigmoid()] if norm_last else [mnn.Sigmoid()]
    model = mnn.Sequential(*layers)
    loss_fn = mnn.MSELoss()
    opt = moptim.Adam(model.parameters(), lr=3e-3)
    rows = np.arange(256)
    with nd.watch(model, optimizer=opt) as mon:
        for step in range(steps):
            batch = x[rows[(step * 64) % 256:(step * 64) % 256 + 64]]
            opt.zero_grad()
            loss = loss_fn(model(batch), batch)
            loss.backward()
            opt.step()
            mon.step(loss)
    return mon


def test_minigrad_layer_norm_before_sigmoid_is_named_and_its_fix_is_not():
    assert CODE in {f.code for f in _minigrad_reconstruction(True).findings()}
    assert CODE not in {f.code for f in _minigrad_reconstruction(False).findings()}

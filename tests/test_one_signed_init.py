"""INIT_SCALE_TOO_LARGE for weights that started all of one sign and too wide (real-bug batch
247, ilkarman/DeepLearningFrameworks#31: recurrent weights drawn by ``uniform`` at its default
range [0, 1)).

Such a start saturates a GRU's gates from the first step while the first loss sits at chance
(the GRU's outputs are bounded), so the first-loss test of the rule never fires; the
one-signed start, read once when watch begins (``monitor/start_parameters.py``), says it
instead. Named on the planted GRU and on an MLP given the same initialiser, in torch and in
minigrad; silent on the default initialisations, on a centred uniform of the same width's
bound, and on a small one-signed start (fast.ai's U(0, 0.05) collaborative-filtering tables
are one-signed and narrow)."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import rnn_uniform_init_zero_to_one_tf_default as gru_case  # noqa: E402
from benchmarks.real_bugs._common import batches, classification  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
CODE = "INIT_SCALE_TOO_LARGE"


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def test_the_gru_drawn_from_zero_to_one_is_named_and_its_twin_is_silent():
    mon = gru_case.run(fixed=False, steps=60)
    found = [f for f in mon.findings() if f.code == CODE]
    assert found and found[0].evidence["one_signed"]
    assert "gru.weight_hh_l0" in found[0].evidence["gains"]
    assert CODE not in _codes(gru_case.run(fixed=True, steps=60))


def _torch_mlp(init):
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(nn.Linear(x.shape[1], 64), nn.Tanh(), nn.Linear(64, 10))
    if init is not None:
        for layer in (model[0], model[2]):
            init(layer.weight)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, 60):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_an_mlp_drawn_from_zero_to_one_is_named():
    assert CODE in _codes(_torch_mlp(nn.init.uniform_))


@pytest.mark.parametrize("init", [None, lambda w: nn.init.uniform_(w, -0.1, 0.1),
                                  lambda w: nn.init.uniform_(w, 0.0, 0.01)],
                         ids=["default", "centred uniform", "small one-signed"])
def test_centred_or_narrow_starts_are_silent(init):
    assert CODE not in _codes(_torch_mlp(init))


def _minigrad_mlp(one_signed):
    import minigrad as mg
    import minigrad.nn as mnn
    import minigrad.optim as moptim
    mg.manual_seed(0)
    x, y = (a.numpy() for a in classification())
    model = mnn.Sequential(mnn.Linear(x.shape[1], 64), mnn.Tanh(), mnn.Linear(64, 10))
    if one_signed:
        rng = np.random.default_rng(0)
        for layer in (model[0], model[2]):
            layer.weight.data[...] = rng.uniform(0.0, 1.0, layer.weight.data.shape)
    optimizer = moptim.Adam(model.parameters(), lr=1e-3)
    loss_fn = mnn.CrossEntropyLoss()
    rows = np.random.default_rng(1)
    with nd.watch(model, optimizer=optimizer) as mon:
        for _ in range(60):
            i = rows.integers(0, len(x), 64)
            loss = loss_fn(model(mg.tensor(x[i])), mg.tensor(y[i]))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_minigrad_one_signed_start_is_named_and_its_default_is_silent():
    assert CODE in _codes(_minigrad_mlp(one_signed=True))
    assert CODE not in _codes(_minigrad_mlp(one_signed=False))


def test_the_one_signed_rows_survive_save_and_load(tmp_path):
    mon = _torch_mlp(nn.init.uniform_)
    path = tmp_path / "run.nndebug"
    mon.save(str(path))
    loaded = nd.load_run(str(path))
    assert [tuple(row) for row in loaded.run.observed.one_signed_start_parameters] == \
        [tuple(row) for row in mon.run.observed.one_signed_start_parameters]
    assert CODE in {f.code for f in loaded.findings()}

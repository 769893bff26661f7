"""Real-bug batch 96 (exponential moving averages, SWA, weight averaging): a copy of the model
kept beside it that stops following the weights it averages - an EMA kept in bfloat16 whose
in-place updates round away (EMA_UPDATES_ROUNDED_AWAY), an average over the parameters only
whose buffers stay those of the copy (AVERAGED_COPY_BUFFERS_STALE), both read from the copies
of the model in the caller's scope when watch starts and ends (``monitor/averaged_copies.py``).
Variants: a float16 EMA of a CNN trained by SGD behind a helper object, an EMA of a
batch-norm CNN over parameters() only. Fixed twins silent, and the healthy look-alikes a
careless rule would flag: a bfloat16 copy refreshed from the model by a cast, a frozen
bfloat16 reference, a bfloat16 average with a small decay, a frozen reference with
batch norms, a timm-style EMA over the state_dict."""
import copy

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

from benchmarks.real_bugs import averaged_model_buffers_frozen_at_copy as stale_case  # noqa: E402
from benchmarks.real_bugs import ema_copy_kept_in_half_precision as half_case  # noqa: E402
from benchmarks.real_bugs._common import batches, classification, mlp  # noqa: E402
from nndebug.monitor.averaged_copies import AveragedCopies  # noqa: E402
from nndebug.observed import Observed  # noqa: E402
from nndebug.rules.averaged_copies import (averaged_copy_buffers_stale,  # noqa: E402
                                           ema_updates_rounded_away)

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
ROUNDED, STALE = "EMA_UPDATES_ROUNDED_AWAY", "AVERAGED_COPY_BUFFERS_STALE"


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


class Helper:
    """An EMA helper object holding its copy as ``.module`` (timm's ModelEma, in short)."""

    def __init__(self, model, dtype=None):
        self.module = copy.deepcopy(model).requires_grad_(False).eval()
        if dtype is not None:
            self.module.to(dtype)


def _cnn(norm=False):
    layers = [nn.Conv2d(1, 8, 3, padding=1)]
    layers += [nn.BatchNorm2d(8)] if norm else []
    layers += [nn.ReLU(), nn.Flatten(), nn.Linear(8 * 64, 10)]
    return nn.Sequential(*layers)


def _train(model, update, optimizer, steps=80, images=False):
    """Train ``model`` under watch; ``update(step)`` after every optimizer step."""
    import nndebug as nd
    x, y = classification(images=images)
    with nd.watch(model, optimizer) as mon:
        for step, (xb, yb) in enumerate(batches(x, y, steps), start=1):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            update(step)
            mon.step(loss)
    return mon


@torch.no_grad()
def _average(copy_model, model, decay, what="parameters"):
    pairs = zip(copy_model.parameters(), model.parameters()) if what == "parameters" else \
        zip(copy_model.state_dict().values(), model.state_dict().values())
    for averaged, live in pairs:
        if averaged.is_floating_point():
            averaged.mul_(decay).add_(live.to(averaged.dtype), alpha=1 - decay)


# --- the planted cases and their twins -----------------------------------------------------

def test_half_precision_ema_is_named_and_twin_silent():
    found = [f for f in half_case.run().findings() if f.code == ROUNDED]
    assert found and found[0].severity == "warning" and found[0].where == "ema"
    assert found[0].evidence["copy_changed"] < found[0].evidence["model_changed"]
    assert "bfloat16" in found[0].message
    assert not _problems(half_case.run(fixed=True))


def test_stale_buffers_are_named_and_twin_silent():
    found = [f for f in stale_case.run().findings() if f.code == STALE]
    assert found and found[0].evidence["stale"] == 1 and found[0].where == "ema"
    assert not _problems(stale_case.run(fixed=True))


# --- variants ------------------------------------------------------------------------------

def test_float16_ema_of_a_cnn_behind_a_helper_is_named():
    torch.manual_seed(1)
    model = _cnn()
    ema = Helper(model, torch.float16)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    # diffusers' default decay; float16's step is 8 times finer than bfloat16's, so at 0.999
    # most of its updates survive (measured: 311 of 346 values changed, the model's 346)
    mon = _train(model, lambda step: _average(ema.module, model, 0.9999), optimizer,
                 images=True)
    found = [f for f in mon.findings() if f.code == ROUNDED]
    assert found and found[0].evidence["dtype"] == "float16"
    assert found[0].where == "ema"


def test_batchnorm_cnn_ema_over_parameters_only_is_named():
    torch.manual_seed(2)
    model = _cnn(norm=True)
    ema = Helper(model)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    mon = _train(model, lambda step: _average(ema.module, model, 0.99), optimizer,
                 images=True)
    found = [f for f in mon.findings() if f.code == STALE]
    assert found and found[0].evidence["stale"] == 2      # running mean and variance


# --- healthy look-alikes -------------------------------------------------------------------

def test_bfloat16_copy_refreshed_by_a_cast_stays_silent():
    torch.manual_seed(3)
    model = mlp()
    inference = copy.deepcopy(model).to(torch.bfloat16).eval()

    @torch.no_grad()
    def refresh(step):
        if step % 20 == 0:
            for a, b in zip(inference.parameters(), model.parameters()):
                a.copy_(b)

    mon = _train(model, refresh, torch.optim.Adam(model.parameters(), lr=3e-3))
    assert ROUNDED not in _problems(mon)
    assert mon.run.observed.averaged_copies          # the copy was followed


def test_frozen_bfloat16_reference_stays_silent():
    torch.manual_seed(4)
    model = mlp()
    reference = copy.deepcopy(model).to(torch.bfloat16).requires_grad_(False)  # noqa: F841
    mon = _train(model, lambda step: None, torch.optim.Adam(model.parameters(), lr=3e-3))
    assert not ({ROUNDED, STALE} & _problems(mon))


def test_bfloat16_average_with_a_small_decay_stays_silent():
    torch.manual_seed(5)
    model = mlp()
    ema = Helper(model, torch.bfloat16)
    mon = _train(model, lambda step: _average(ema.module, model, 0.5),
                 torch.optim.Adam(model.parameters(), lr=3e-3))
    assert ROUNDED not in _problems(mon)


def test_frozen_reference_with_batch_norms_stays_silent():
    torch.manual_seed(6)
    model = _cnn(norm=True)
    reference = Helper(model)                      # never updated: a reference policy
    mon = _train(model, lambda step: None, torch.optim.Adam(model.parameters(), lr=3e-3),
                 images=True)
    assert STALE not in _problems(mon)
    del reference


def test_state_dict_ema_of_a_batchnorm_cnn_stays_silent():
    torch.manual_seed(7)
    model = _cnn(norm=True)
    ema = Helper(model)
    mon = _train(model, lambda step: _average(ema.module, model, 0.99, "state_dict"),
                 torch.optim.Adam(model.parameters(), lr=3e-3), images=True)
    assert not ({ROUNDED, STALE} & _problems(mon))


# --- the rules on hand-made rows, the observer, saved rows ---------------------------------

class _Adapter:
    framework = "torch"


class _Ctx:
    def __init__(self, rows):
        observed = Observed()
        observed.averaged_copies.extend(rows)
        self.run = type("Run", (), {"observed": observed})()


def test_rounded_rule_on_rows():
    bug = ("ema", "bfloat16", "float32", 586, 347, 527, 10, 0, 0)
    assert ema_updates_rounded_away(_Ctx([bug])).evidence["copy_changed"] == 347
    assert ema_updates_rounded_away(_Ctx([bug[:4] + (500,) + bug[5:]])) is None   # follows
    assert ema_updates_rounded_away(_Ctx([bug[:1] + ("float32",) + bug[2:]])) is None
    assert ema_updates_rounded_away(_Ctx([bug[:4] + (0,) + bug[5:]])) is None     # frozen
    assert ema_updates_rounded_away(_Ctx([bug[:6] + (400,) + bug[7:]])) is None   # a cast


def test_stale_rule_on_rows():
    bug = ("ema", "float32", "float32", 586, 543, 531, 0, 1, 1)
    assert averaged_copy_buffers_stale(_Ctx([bug])).evidence["stale"] == 1
    assert averaged_copy_buffers_stale(_Ctx([bug[:8] + (0,)])) is None
    assert averaged_copy_buffers_stale(_Ctx([bug[:4] + (0,) + bug[5:]])) is None  # frozen


def test_observer_finds_the_copy_and_lets_go():
    model = mlp()
    ema = copy.deepcopy(model)
    observed = Observed()
    observer = AveragedCopies(_Adapter(), observed, model, print)
    with torch.no_grad():
        for p in ema.parameters():
            p.add_(1.0)
    observer.read()
    assert observer._copies == [] and len(observed.averaged_copies) == 1
    local, copy_dtype, _, values, changed, model_changed, *_ = observed.averaged_copies[0]
    assert local == "ema" and copy_dtype == "float32" and changed == values
    assert model_changed == 0
    observer.read()                              # a second close reads nothing more
    assert len(observed.averaged_copies) == 1


def test_rows_saved_and_loaded(tmp_path):
    import nndebug as nd
    mon = half_case.run(steps=30)
    path = tmp_path / "run.nndebug"
    mon.save(str(path))
    rows = nd.load_run(str(path)).run.observed.averaged_copies
    assert rows and [list(r) for r in rows] == \
        [list(r) for r in mon.run.observed.averaged_copies]

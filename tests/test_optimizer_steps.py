"""REPEATED_OPTIMIZER_STEPS: optimizer.step() called more often than backward between two
watched steps (``monitor/optimizer_steps.py``), and minigrad's optimizer step hooks it uses.

Planted: a stray optimizer.step() on every micro-batch of an accumulation loop, and a step
called twice per batch. Healthy twins: plain training, accumulation over four backward
passes, watch's step() called only every few optimizer steps, L-BFGS (its closure runs the
backward passes inside step())."""
import numpy as np
import pytest

import nndebug as nd

FRAMEWORKS = ["torch", "minigrad"]


def _setup(framework):
    if framework == "torch":
        torch = pytest.importorskip("torch")
        torch.manual_seed(0)
        nn, F, tensor, SGD = torch.nn, torch.nn.functional, torch.tensor, torch.optim.SGD
    else:
        import minigrad as mg
        nn, F, tensor, SGD = mg.nn, mg.nn.functional, mg.tensor, mg.optim.SGD
    rng = np.random.default_rng(0)
    x = tensor(rng.normal(size=(64, 6)).astype(np.float32))
    y = tensor(rng.integers(0, 3, size=64))
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
    optimizer = SGD(model.parameters(), lr=0.02, momentum=0.9)
    return model, optimizer, lambda rows: F.cross_entropy(model(x[rows]), y[rows])


def _train(framework, accumulate=1, stray_step=False, double_step=False, watch_every=1,
           steps=40):
    model, optimizer, loss_of = _setup(framework)
    with nd.watch(model, optimizer) as mon:
        for i in range(steps * accumulate):
            rows = slice(16 * (i % 4), 16 * (i % 4) + 16)
            loss = loss_of(rows)
            loss.backward()
            if (i + 1) % accumulate == 0:
                optimizer.step()
                if double_step:
                    optimizer.step()                  # the planted bug: the same gradient again
                optimizer.zero_grad()
                if (i + 1) // accumulate % watch_every == 0:
                    mon.step(loss)
            if stray_step:
                optimizer.step()                      # the planted bug: outside the if
    return mon


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_a_stray_step_on_every_micro_batch_is_named(framework):
    mon = _train(framework, accumulate=4, stray_step=True)
    found = {f.code: f for f in mon.findings()}
    assert "REPEATED_OPTIMIZER_STEPS" in found
    # every watched step after the first holds the stray step that follows the boundary
    assert found["REPEATED_OPTIMIZER_STEPS"].evidence["times"] == 39
    assert found["REPEATED_OPTIMIZER_STEPS"].severity == "error"


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_a_step_called_twice_per_batch_is_named(framework):
    mon = _train(framework, double_step=True)
    assert mon.run.observed.repeated_optimizer_steps[:3] == [0, 1, 2]
    assert "REPEATED_OPTIMIZER_STEPS" in _codes(mon)


@pytest.mark.parametrize("framework", FRAMEWORKS)
@pytest.mark.parametrize("setup", [dict(), dict(accumulate=4), dict(watch_every=5, steps=60)],
                         ids=["plain", "accumulating", "watched-every-5th-step"])
def test_one_step_per_gradient_is_silent(framework, setup):
    mon = _train(framework, **setup)
    assert mon.run.observed.repeated_total == 0
    assert "REPEATED_OPTIMIZER_STEPS" not in _codes(mon)


def test_lbfgs_running_its_closure_inside_step_is_silent():
    torch = pytest.importorskip("torch")
    model, _, loss_of = _setup("torch")
    optimizer = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=4)

    def closure():
        optimizer.zero_grad()
        loss = loss_of(slice(0, 64))
        loss.backward()
        return loss
    with nd.watch(model, optimizer) as mon:
        for _ in range(10):
            mon.step(optimizer.step(closure))
    assert mon.run.observed.repeated_total == 0


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_the_step_hook_goes_with_the_monitor(framework):
    mon = _train(framework, steps=2)
    hooks = getattr(mon.optimizer, "_optimizer_step_post_hooks", None)
    if hooks is None:
        hooks = mon.optimizer._step_post_hooks
    assert mon.around.optimizer_steps._handle is None and len(hooks) == 0


def test_minigrad_step_hooks_are_called_like_torchs():
    torch = pytest.importorskip("torch")
    import minigrad as mg
    calls = {"torch": [], "minigrad": []}
    for name, lib in (("torch", torch), ("minigrad", mg)):
        w = (lib.nn.Parameter(lib.ones(3)) if name == "torch" else mg.nn.Parameter(mg.ones(3)))
        optimizer = lib.optim.SGD([w], lr=0.1)
        log = calls[name]
        pre = optimizer.register_step_pre_hook(
            lambda opt, args, kwargs, log=log, o=optimizer: log.append(
                ("pre", opt is o, [a is o for a in args], kwargs)))
        post = optimizer.register_step_post_hook(
            lambda opt, args, kwargs, log=log, o=optimizer: log.append(
                ("post", opt is o, [a is o for a in args], kwargs)))
        (w * w).sum().backward()
        optimizer.step()
        pre.remove()
        optimizer.step()
        post.remove()
        optimizer.step()
    assert calls["minigrad"] == calls["torch"] == [("pre", True, [True], {}),
                                                   ("post", True, [True], {}),
                                                   ("post", True, [True], {})]


def test_a_step_hook_must_be_callable():
    import minigrad as mg
    optimizer = mg.optim.SGD([mg.nn.Parameter(mg.ones(2))], lr=0.1)
    with pytest.raises(TypeError, match="callable"):
        optimizer.register_step_post_hook(3)

"""A monitor left open (a training loop stopped by an error or Ctrl-C, no ``with``/``close``)
must not leak into what runs next: not into another model's steps, and not twice into the
same model's when it is watched again (a notebook cell re-run)."""
import warnings

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402


def _setup(seed=0):
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
    return model, torch.optim.SGD(model.parameters(), lr=0.1), nn.CrossEntropyLoss()


def _steps(model, optimizer, loss_fn, mon, n, seed=1):
    g = torch.Generator().manual_seed(seed)
    for _ in range(n):
        x, y = torch.randn(32, 8, generator=g), torch.randint(0, 3, (32,), generator=g)
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        mon.step(loss)


def _modes_on_stack():
    return torch._C._len_torch_function_stack()


def _hook_count(model):
    return sum(len(m._forward_hooks) + len(m._forward_pre_hooks) for m in model.modules())


def test_a_monitor_left_open_pushes_nothing_into_another_models_steps():
    abandoned = []
    for _ in range(3):                 # three cells run, each stopped after one step
        model, optimizer, loss_fn = _setup()
        mon = nd.watch(model, optimizer)
        _steps(model, optimizer, loss_fn, mon, 1)
        abandoned.append(mon)
    model, optimizer, loss_fn = _setup()
    with nd.watch(model, optimizer) as mon:
        _steps(model, optimizer, loss_fn, mon, 6)
        assert _modes_on_stack() == 0
    assert [m.n_records for m in abandoned] == [1, 1, 1]   # they saw none of its steps
    for m in abandoned:
        m.close()
    assert _modes_on_stack() == 0


def test_watching_the_same_model_again_closes_the_earlier_monitor_with_a_warning():
    model, optimizer, loss_fn = _setup()
    bare = _hook_count(model)
    first = nd.watch(model, optimizer)
    _steps(model, optimizer, loss_fn, first, 5)
    records_before = first.n_records
    with pytest.warns(RuntimeWarning, match="already had an open monitor"):
        second = nd.watch(model, optimizer)
    assert first.closed and not second.closed
    first.findings()                   # still readable
    _steps(model, optimizer, loss_fn, second, 3)
    assert second.n_records >= 3 and first.n_records == records_before
    second.close()
    assert _hook_count(model) == bare and _modes_on_stack() == 0


def test_a_closed_monitor_or_another_model_gives_no_warning():
    model, optimizer, loss_fn = _setup()
    with nd.watch(model, optimizer) as mon:
        _steps(model, optimizer, loss_fn, mon, 2)
    other, other_optimizer, _ = _setup(seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nd.watch(model, optimizer).close()      # the first one was closed
        a, b = nd.watch(model, optimizer), nd.watch(other, other_optimizer)  # two models
        assert not a.closed and not b.closed
        a.close(), b.close()


def test_a_forward_interrupted_inside_a_recorded_step_leaves_nothing_behind():
    model, optimizer, loss_fn = _setup()
    bare = _hook_count(model)
    mon = nd.watch(model, optimizer)

    def interrupt(module, inputs, output):
        raise KeyboardInterrupt

    handle = model[0].register_forward_hook(interrupt)
    with pytest.raises(KeyboardInterrupt):
        _steps(model, optimizer, loss_fn, mon, 1)     # step 0 is recorded: its mode is on
    handle.remove()
    with pytest.warns(RuntimeWarning):
        again = nd.watch(model, optimizer)
    assert _modes_on_stack() <= 1      # the earlier mode is popped once it is on top
    _steps(model, optimizer, loss_fn, again, 3)
    again.close()
    assert _hook_count(model) == bare and _modes_on_stack() == 0


def _global_hook_count():
    from torch.nn.modules import module
    return len(module._global_forward_hooks) + len(module._global_forward_pre_hooks)


def test_a_monitor_left_open_lets_go_of_the_global_hooks_once_other_models_run_on(monkeypatch):
    """Left armed (its next step never came), a monitor's global module hooks would see every
    module call of the process for good; after FOREIGN_CALLS_LEFT_OPEN calls of modules
    outside its model they are gone, and a mode a stopped forward left pushed is popped."""
    from nndebug.monitor import around
    monkeypatch.setattr(around, "FOREIGN_CALLS_LEFT_OPEN", 50)
    model, optimizer, loss_fn = _setup()
    left = nd.watch(model, optimizer)

    def interrupt(module, inputs, output):
        raise KeyboardInterrupt
    handle = model[0].register_forward_hook(interrupt)
    with pytest.raises(KeyboardInterrupt):
        _steps(model, optimizer, loss_fn, left, 1)    # step 0: hooks and mode on
    handle.remove()
    assert _global_hook_count() > 0 and _modes_on_stack() == 1
    other, other_optimizer, _ = _setup(seed=1)
    x = torch.randn(4, 8)
    for _ in range(20):                               # another model, unwatched: 4
        other(x)                                      # module calls a forward
    assert _global_hook_count() == 0 and _modes_on_stack() == 0
    left.close()


def test_a_watched_models_own_calls_keep_the_global_hooks(monkeypatch):
    from nndebug.monitor import around
    monkeypatch.setattr(around, "FOREIGN_CALLS_LEFT_OPEN", 50)
    model, optimizer, loss_fn = _setup()
    other = _setup(seed=1)[0]
    with nd.watch(model, optimizer) as mon:
        _steps(model, optimizer, loss_fn, mon, 1)     # armed for step 1 now
        x = torch.randn(4, 8)
        for _ in range(10):                           # 40 calls, under the limit, ...
            other(x)
        model(x)                                      # ... a call of the watched model ...
        for _ in range(10):                           # ... and 40 more
            other(x)
        assert _global_hook_count() > 0
        _steps(model, optimizer, loss_fn, mon, 3)
        assert mon.n_records >= 3

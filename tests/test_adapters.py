"""The adapter protocol the gradient checks stand on, on both frameworks: private copies,
state capture/restore, RNG replay, recording module calls, re-running one module or one
primitive alone."""
import threading

import numpy as np
import pytest
import torch

import minigrad as mg
import minigrad.nn as mnn
from nndebug.adapters import Adapter, adapt
from nndebug.adapters.base import ModuleCall

FRAMEWORKS = ["torch", "minigrad"]


def build(framework, dropout=False, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((4, 5)).astype(np.float32)
    y = rng.integers(0, 3, 4)
    if framework == "torch":
        torch.manual_seed(seed)
        nn = torch.nn
        layers = [nn.Linear(5, 6), nn.BatchNorm1d(6), nn.Tanh()]
        layers += [nn.Dropout(0.5)] if dropout else []
        model = nn.Sequential(*layers, nn.Linear(6, 3))
        return model, torch.from_numpy(x), torch.from_numpy(y), nn.CrossEntropyLoss()
    mg.manual_seed(seed)
    layers = [mnn.Linear(5, 6), mnn.BatchNorm1d(6), mnn.Tanh()]
    layers += [mnn.Dropout(0.5)] if dropout else []
    model = mnn.Sequential(*layers, mnn.Linear(6, 3))
    return model, mg.tensor(x), mg.tensor(y), mnn.CrossEntropyLoss()


def test_adapt_picks_the_framework_and_rejects_the_rest():
    assert adapt(build("torch")[0]).framework == "torch"
    assert adapt(build("minigrad")[0]).framework == "minigrad"
    with pytest.raises(TypeError, match="torch.nn.Module and minigrad.nn.Module"):
        adapt(object())


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_private_copy_is_float64_and_independent(framework):
    model, x, y, loss_fn = build(framework)
    model[0].register_forward_hook(lambda *a: None)
    user = adapt(model)
    state = user.capture_state()
    work = user.private_copy(np.float64)
    assert work.float_dtype() == np.float64
    assert all(work.to_numpy(p).dtype == np.float64 for _, p in work.named_parameters())
    assert work.to_numpy(dict(work.named_modules())["1"].running_mean).dtype == np.float64
    # the user's hook comes along (the copy computes what the model computes), in a
    # table of the copy's own: clearing it leaves the user's hook in place
    assert work.hook_counts()["0"] == 1 and sum(work.hook_counts().values()) == 1
    dict(work.named_modules())["0"]._forward_hooks.clear()
    assert user.hook_counts()["0"] == 1
    name, p = work.named_parameters()[0]
    work.set_parameter(p, np.zeros(work.to_numpy(p).shape))
    assert user.state_differences(state) == []
    assert user.float_dtype() == np.float32


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_private_copy_shares_hooks_that_cannot_be_copied(framework):
    model, x, y, loss_fn = build(framework)
    lock = threading.Lock()            # deepcopy of a lock raises TypeError
    model[0].register_forward_hook(lambda *a: lock.locked())
    work = adapt(model).private_copy()
    # the hook itself is shared with the copy, never deep-copied (with its lock)
    assert sum(work.hook_counts().values()) == 1


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_private_copy_of_a_model_keeping_a_graph_tensor_from_its_forward(framework):
    """A layer that keeps its last balance loss as an attribute (a mixture of experts' habit,
    real-bug batch 168): torch refuses to deep-copy a tensor that is part of a graph, and the
    dependency probe gave up on such a model. The copy holds the value detached; the user's
    attribute is left as it was, still in its graph."""
    model, x, y, loss_fn = build(framework)
    out = model(x)
    model[0].balance = (out * out).mean()           # kept from the last forward pass
    model[0].history = [out.sum(), {"aux": out.mean()}]
    kept = model[0].balance
    work = adapt(model).private_copy(np.float64)
    copied = dict(work.named_modules())["0"]
    assert float(work.to_numpy(copied.balance)) == pytest.approx(float(adapt(model).to_numpy(kept)))
    assert model[0].balance is kept
    if framework == "torch":
        assert kept.grad_fn is not None and copied.balance.grad_fn is None
        assert copied.history[1]["aux"].grad_fn is None
    assert work.loss_value(x, y, loss_fn) == pytest.approx(adapt(model).loss_value(x, y, loss_fn),
                                                           rel=1e-5)


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_state_restore_puts_back_buffers_grads_modes_and_rng(framework):
    model, x, y, loss_fn = build(framework, dropout=True)
    adapter = adapt(model)
    state = adapter.capture_state()
    model(x)                               # batch-norm updates its running statistics
    model.eval()
    p = adapter.named_parameters()[0][1]
    p.grad = torch.ones_like(p) if framework == "torch" else np.ones_like(p.data)
    handle = model[2].register_forward_hook(lambda *a: None)
    np.random.rand()
    problems = adapter.state_differences(state)
    assert any("running_mean" in d for d in problems) and any("training" in d for d in problems)
    assert any(".grad" in d for d in problems) and any("RNG" in d for d in problems)
    adapter.restore_state(state)
    assert adapter.state_differences(state) == []
    del handle


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_forked_rng_replays_the_same_dropout_mask(framework):
    model, x, y, loss_fn = build(framework, dropout=True)
    work = adapt(model).private_copy()
    before = work.get_rng_state()
    with work.forked_rng(7) as replay:
        replay()
        first = work.loss_value(x, y, loss_fn)
        second = work.loss_value(x, y, loss_fn)
        replay()
        again = work.loss_value(x, y, loss_fn)
    assert first == again and first != second
    assert _same_rng(work, before)



def test_forked_rng_queues_no_seed_for_a_device_not_yet_started():
    """torch.manual_seed on a machine whose GPU has not started queues a seeding call that
    runs when it starts, in place of the user's own queued seed: after the fork is
    restored, the GPU generator would start from the fork's seed. The fork seeds only the generators it saves and restores."""
    import torch
    import torch.cuda
    if torch.cuda.is_initialized():
        pytest.skip("the GPU has started: nothing is queued for it")
    model, x, y, loss_fn = build("torch", dropout=True)
    torch.manual_seed(11)           # the user's seed, queued for the GPU's start
    queued = list(torch.cuda._lazy_seed_tracker.get_calls())
    work = adapt(model)
    with work.forked_rng(3) as replay:
        replay()
        first = work.loss_value(x, y, loss_fn)
        replay()
        assert work.loss_value(x, y, loss_fn) == first     # still seeded and replayed
    assert torch.cuda._lazy_seed_tracker.get_calls() == queued

def _same_rng(adapter, state):
    probe = adapter.capture_state()
    probe["rng"] = state
    return not any("RNG" in d for d in adapter.state_differences(probe))


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_loss_and_grads_never_touch_grad_and_scale_linearly(framework):
    model, x, y, loss_fn = build(framework)
    adapter = adapt(model).private_copy()
    loss, grads, _ = adapter.loss_and_grads(x, y, loss_fn)
    _, grads0, _ = adapter.loss_and_grads(x, y, loss_fn, grad_scale=0.0)
    _, grads2, _ = adapter.loss_and_grads(x, y, loss_fn, grad_scale=2.0)
    for name in grads:
        assert np.all(grads0[name] == 0)
        assert np.array_equal(grads2[name], 2 * grads[name])
    assert all(adapter.grad_of(p) is None for _, p in adapter.named_parameters())


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_record_calls_sees_every_module_and_the_loss(framework):
    model, x, y, loss_fn = build(framework, dropout=True)
    work = adapt(model).private_copy()
    recording = work.record_calls(work.private_inputs(x), work.private_inputs(y), loss_fn,
                                  record_primitives=work.supports_primitives)
    names = [c.name for c in recording.calls if not c.is_loss]
    assert names == ["", "0", "1", "2", "3", "4"]
    loss_call = recording.calls[-1]
    assert loss_call.is_loss and loss_call.outputs[0].shape == ()
    linear = recording.calls[1]
    assert isinstance(linear, ModuleCall) and linear.parent == 0
    assert linear.inputs[0].shape == (4, 5) and linear.outputs[0].shape == (4, 6)
    assert np.allclose(linear.inputs[0], work.to_numpy(x).astype(np.float64))
    assert recording.calls[0].order > recording.calls[-2].order   # the root finishes last
    if framework == "minigrad":
        ops = [p.op for p in linear.primitives]
        assert ops == ["permute", "matmul", "add"]
        matmul = linear.primitives[1]
        assert matmul.inputs[0].dtype == np.float64
        assert [p.op for p in loss_call.primitives] == ["cross_entropy"]
    # forward is put back: the modules run normally afterwards
    assert all("forward" not in vars(m) for _, m in work.named_modules())


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_integer_inputs_stay_integer(framework):
    if framework == "torch":
        model = torch.nn.Sequential(torch.nn.Embedding(5, 3), torch.nn.Flatten(), torch.nn.Linear(6, 2))
        ids = torch.tensor([[1, 4], [0, 0]])
    else:
        model = mnn.Sequential(mnn.Embedding(5, 3), mnn.Flatten(), mnn.Linear(6, 2))
        ids = mg.tensor(np.array([[1, 4], [0, 0]]))
    work = adapt(model).private_copy()
    prepared = work.private_inputs(ids)
    assert work.to_numpy(prepared).dtype.kind == "i"
    assert work.private_inputs(np.array([0, 1])).dtype in (torch.int64, np.dtype(np.int64))
    recording = work.record_calls(prepared)
    embedding = recording.calls[1]
    assert embedding.inputs == [] and work.to_numpy(embedding.args[0]).dtype.kind == "i"


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_module_vjp_matches_finite_differences(framework):
    model, x, y, loss_fn = build(framework)
    work = adapt(model).private_copy()
    calls = work.record_calls(work.private_inputs(x)).calls
    linear = calls[1]
    rng = np.random.default_rng(0)
    cot = [rng.standard_normal(linear.outputs[0].shape)]
    value, (grad_x,), grads = work.module_vjp(linear, cot)
    assert set(grads) == {"weight", "bias"}
    assert value == pytest.approx(work.module_value(linear, cot))
    eps, xin = 1e-6, linear.inputs[0].copy()
    for index in [(0, 0), (3, 4), (2, 1)]:
        up, down = xin.copy(), xin.copy()
        up[index] += eps
        down[index] -= eps
        numeric = (work.module_value(linear, cot, [up]) - work.module_value(linear, cot, [down])) / (2 * eps)
        assert numeric == pytest.approx(grad_x[index], rel=1e-6)
    weight = dict(work.named_parameters())["0.weight"]
    w = work.to_numpy(weight)
    work.set_element(weight, 7, w.reshape(-1)[7] + eps)
    up = work.module_value(linear, cot)
    work.set_element(weight, 7, w.reshape(-1)[7] - eps)
    down = work.module_value(linear, cot)
    work.set_parameter(weight, w)
    assert (up - down) / (2 * eps) == pytest.approx(grads["weight"].reshape(-1)[7], rel=1e-6)


def test_module_vjp_does_not_use_the_primitives_it_checks():
    # the contraction <output, cotangent> must not go through mul/sum: plant bugs in them
    model, x, y, loss_fn = build("minigrad")
    work = adapt(model).private_copy()
    linear = work.record_calls(work.private_inputs(x)).calls[1]
    cot = [np.random.default_rng(0).standard_normal((4, 6))]
    clean = work.module_vjp(linear, cot)
    with mg.bugs.plant("mul_broadcast_takes_first_row"), mg.bugs.plant("mean_forgets_count"):
        planted = work.module_vjp(linear, cot)
    assert np.array_equal(clean[1][0], planted[1][0])


def test_primitive_vjp_uses_the_backward_the_engine_would_use():
    model, x, y, loss_fn = build("minigrad")
    work = adapt(model).private_copy()
    recording = work.record_calls(work.private_inputs(x), record_primitives=True)
    tanh = next(p for c in recording.calls for p in c.primitives if p.op == "tanh")
    cot = np.random.default_rng(0).standard_normal(tanh.out_shape)
    _, (good,) = work.primitive_vjp(tanh, tanh.inputs, cot)
    assert np.allclose(good, cot * (1 - np.tanh(tanh.inputs[0]) ** 2))
    with mg.bugs.plant("tanh_not_squared"):
        _, (bad,) = work.primitive_vjp(tanh, tanh.inputs, cot)
    assert not np.allclose(bad, good)
    value = work.primitive_value(tanh, tanh.inputs, cot)
    assert value == pytest.approx(np.sum(np.tanh(tanh.inputs[0]) * cot))


def test_primitive_records_name_the_parameters_they_read():
    model, x, y, loss_fn = build("minigrad")
    work = adapt(model).private_copy()
    recording = work.record_calls(work.private_inputs(x), record_primitives=True)
    linear = recording.calls[1]
    permute, matmul, add = linear.primitives
    assert permute.params == {0: "0.weight"} and add.params == {1: "0.bias"}
    assert matmul.params == {}


def test_engine_self_test_sees_the_engine_bug():
    adapter = adapt(build("minigrad")[0])
    assert adapter.engine_self_test()[0]
    with mg.bugs.plant("engine_overwrites_reused_gradient"):
        ok, sentence = adapter.engine_self_test()
    assert not ok and "used twice" in sentence
    assert adapter.engine_self_test()[0]


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_default_dtype_is_switched_and_restored(framework):
    adapter = adapt(build(framework)[0])
    read = (lambda: torch.get_default_dtype()) if framework == "torch" else mg.get_default_dtype
    before = read()
    with adapter.default_dtype(np.float64):
        assert str(read()).endswith("float64")
    assert read() == before


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_trace_records_grad_output_and_grad_input(framework):
    model, x, y, loss_fn = build(framework)
    work = adapt(model).private_copy()
    trace = work.trace(x, y, loss_fn)
    calls = {c.name: c for c in trace.calls}
    tanh, last = calls["2"], calls["3"]
    # the tanh's grad_input is its grad_output times 1 - tanh^2
    expected = tanh.grad_outputs[0] * (1 - tanh.outputs[0] ** 2)
    assert np.allclose(tanh.grad_inputs[0], expected)
    assert np.allclose(last.grad_inputs[0], tanh.grad_outputs[0])
    assert set(trace.grads) == {n for n, _ in work.named_parameters()}
    assert all(work.grad_of(p) is None for _, p in work.named_parameters())


def test_the_protocol_is_small_enough_to_read():
    abstract = sorted(getattr(Adapter, "__abstractmethods__"))
    assert len(abstract) <= 40


def test_forward_hooks_put_in_the_table_run_beside_the_users_and_leave_no_trace():
    """``add_forward_hooks`` (torch: straight into each module's hook table) calls every hook
    after the module's forward, keeps the user's hooks (with kwargs, always called) working,
    is left behind by a private copy, and removing it puts each table back as it was."""
    import torch
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU())
    seen, users = [], []
    model[0].register_forward_hook(lambda m, a, k, out: users.append("kwargs"), with_kwargs=True)
    model[1].register_forward_hook(lambda m, a, out: users.append("always"), always_call=True)
    before = {name: dict(m._forward_hooks) for name, m in model.named_modules()}
    adapter = adapt(model)

    def ours(name):
        def hook(module, inputs, output):
            seen.append((name, tuple(output.shape)))
        return hook
    handle = adapter.add_forward_hooks([(model[0], ours("linear")), (model[1], ours("relu")),
                                        (model, ours("model"))])
    out = model(torch.ones(2, 3))
    assert seen == [("linear", (2, 4)), ("relu", (2, 4)), ("model", (2, 4))]
    assert users == ["kwargs", "always"] and out.shape == (2, 4)
    copy = adapter.private_copy()
    seen.clear()
    copy.model(torch.ones(2, 3, dtype=torch.float64))
    assert seen == []                       # the copy runs the user's hooks only
    handle.remove()
    assert {name: dict(m._forward_hooks) for name, m in model.named_modules()} == before
    model(torch.ones(2, 3))
    assert seen == []

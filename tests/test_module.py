"""Module bookkeeping and hooks, checked against torch.nn.Module on twin models.

The same model is built from either library's namespace (``lib`` is torch.nn or
minigrad.nn), so names, orders, reprs and hook calls can be compared directly.
"""
import copy

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn

torch = pytest.importorskip("torch")


def build_net(lib, make_buffer):
    """A custom module: nested Sequential, ModuleList, batch norm, a buffer, a shared layer."""

    class Net(lib.Module):
        def __init__(self):
            super().__init__()
            self.encoder = lib.Sequential(lib.Linear(4, 8), lib.ReLU())
            self.norm = lib.BatchNorm1d(8)
            self.heads = lib.ModuleList([lib.Linear(8, 3), lib.Linear(8, 3, bias=False)])
            self.register_buffer("scale", make_buffer(np.full(3, 0.5)))
            self.register_buffer("scratch", make_buffer(np.zeros(2)), persistent=False)
            self.tied = self.heads[0]          # the same module under a second name

        def forward(self, x):
            h = self.norm(self.encoder(x))
            return self.heads[0](h) + self.heads[1](h) * self.scale

    return Net()


def twins():
    mine = build_net(nn, lambda a: mg.tensor(a, dtype=np.float64))
    theirs = build_net(torch.nn, lambda a: torch.from_numpy(a))
    theirs.double()
    mine.double()
    mine.load_state_dict(theirs.state_dict())
    return mine, theirs


def test_names_and_orders_match_torch():
    mine, theirs = twins()
    assert [n for n, _ in mine.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in mine.named_modules()] == [n for n, _ in theirs.named_modules()]
    assert [n for n, _ in mine.named_children()] == [n for n, _ in theirs.named_children()]
    assert [n for n, _ in mine.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    assert list(mine.state_dict()) == list(theirs.state_dict())
    assert [n for n, _ in mine.named_parameters(remove_duplicate=False)] == \
        [n for n, _ in theirs.named_parameters(remove_duplicate=False)]
    assert len(list(mine.parameters())) == len(list(theirs.parameters())) == 7
    assert len(list(mine.children())) == len(list(theirs.children()))
    assert len(list(mine.modules())) == len(list(theirs.modules()))
    assert next(iter(mine.named_modules()))[0] == ""


def test_twin_models_compute_the_same_thing():
    mine, theirs = twins()
    x = np.random.default_rng(0).normal(size=(5, 4))
    out = mine(mg.tensor(x, dtype=np.float64))
    np.testing.assert_allclose(out.data, theirs(torch.from_numpy(x)).detach().numpy(),
                               rtol=1e-10, atol=1e-12)


def test_repr_matches_torch():
    mine, theirs = twins()
    assert repr(mine) == repr(theirs)
    layers = ["Linear(3, 4)", "Conv2d(1, 2, 3, stride=2, padding=1)", "Conv2d(2, 2, 3, bias=False)",
              "Conv2d(1, 1, 3, padding='same')", "MaxPool2d(2)", "AvgPool2d(3, 1, 1)",
              "Flatten()", "ReLU()", "ReLU(inplace=True)", "LeakyReLU(0.2)", "Tanh()",
              "Sigmoid()", "GELU()", "GELU(approximate='tanh')", "Softmax(dim=1)",
              "LogSoftmax(dim=-1)", "Dropout(0.3)", "BatchNorm1d(4)", "BatchNorm2d(4, momentum=None)",
              "LayerNorm(5)", "LayerNorm((2, 3), elementwise_affine=False)", "Embedding(10, 3)",
              "Embedding(10, 3, padding_idx=0)", "CrossEntropyLoss()", "MSELoss()",
              "BCEWithLogitsLoss()", "Identity()", "NLLLoss()"]
    for text in layers:
        assert repr(eval("nn." + text)) == repr(eval("torch.nn." + text)), text


def test_setattr_registers_and_rejects_wrong_types():
    layer = nn.Linear(2, 3)
    assert set(layer._parameters) == {"weight", "bias"}
    with pytest.raises(TypeError, match="Parameter or None"):
        layer.weight = np.zeros((3, 2))
    layer.bias = None
    assert [n for n, _ in layer.named_parameters()] == ["weight"]
    layer.extra = nn.Parameter(np.zeros(2))
    assert "extra" in dict(layer.named_parameters())
    del layer.extra
    assert "extra" not in dict(layer.named_parameters())

    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(np.zeros(1))   # before super().__init__()

    with pytest.raises(AttributeError, match="__init__"):
        Early()
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        layer.nope


def test_parameter_keeps_dtype_and_shares_tensor_storage():
    t = mg.tensor(np.arange(3.0), dtype=np.float64)
    p = nn.Parameter(t)
    assert p.dtype == np.float64 and p.requires_grad and p.data is t.data
    assert nn.Parameter(np.zeros(2)).dtype == np.float64          # an array keeps its dtype
    assert nn.Parameter([0.0, 1.0]).dtype == mg.get_default_dtype()  # Python floats: the default
    assert not nn.Parameter(np.zeros(2), requires_grad=False).requires_grad
    assert repr(p).startswith("Parameter containing:")


def test_train_eval_propagate_and_change_behaviour():
    model = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5), nn.BatchNorm1d(4))
    assert all(m.training for m in model.modules())
    assert model.eval() is model
    assert not any(m.training for m in model.modules())
    x = mg.tensor(np.random.default_rng(0).normal(size=(6, 4)).astype(np.float32))
    np.testing.assert_array_equal(model(x).data, model(x).data)   # deterministic in eval
    assert int(model[2].num_batches_tracked.data) == 0
    model.train()
    assert all(m.training for m in model.modules())
    model(x)
    assert int(model[2].num_batches_tracked.data) == 1
    with pytest.raises(ValueError, match="bool"):
        model.train("yes")


def test_zero_grad_and_requires_grad_and_apply():
    model = nn.Sequential(nn.Linear(3, 2), nn.Tanh(), nn.Linear(2, 1))
    model(mg.tensor(np.ones((2, 3), np.float32))).sum().backward()
    assert all(p.grad is not None for p in model.parameters())
    model.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not p.grad.any() for p in model.parameters())
    model.zero_grad()
    assert all(p.grad is None for p in model.parameters())
    model.requires_grad_(False)
    assert not any(p.requires_grad for p in model.parameters())
    seen = []
    model.apply(lambda m: seen.append(type(m).__name__))
    assert seen == ["Linear", "Tanh", "Linear", "Sequential"]
    assert model.get_submodule("2") is model[2]
    assert model.get_parameter("0.bias") is model[0].bias


def test_to_double_float_convert_in_place():
    model = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))
    weight = model[0].weight
    model(mg.tensor(np.ones((4, 3), np.float32))).sum().backward()
    assert model.double() is model
    assert model[0].weight is weight        # same Parameter objects: optimizers keep working
    assert weight.dtype == np.float64 and weight.grad.dtype == np.float64
    assert model[1].running_var.dtype == np.float64
    assert model[1].num_batches_tracked.dtype == np.int64   # integer buffers stay integer
    model.float()
    assert weight.dtype == np.float32
    model.to("cpu")
    model.to(dtype=np.float64)
    assert weight.dtype == np.float64
    with pytest.raises(ValueError, match="device"):
        model.to("cuda")


def test_state_dict_is_a_copy_and_round_trips():
    mine, theirs = twins()
    state = mine.state_dict()
    assert all(isinstance(v, np.ndarray) for v in state.values())
    assert "scratch" not in state and "scale" in state and "norm.num_batches_tracked" in state
    state["encoder.0.weight"][...] = 0      # a copy: the model is untouched
    assert mine.encoder[0].weight.data.any()
    other = build_net(nn, lambda a: mg.tensor(a, dtype=np.float64)).double()
    other.load_state_dict(mine.state_dict())
    for key, value in mine.state_dict().items():
        np.testing.assert_array_equal(other.state_dict()[key], value)
    kept = mine.state_dict(keep_vars=True)
    assert kept["encoder.0.weight"] is mine.encoder[0].weight
    # and into torch, by name
    theirs.load_state_dict({k: torch.from_numpy(v) for k, v in mine.state_dict().items()})


def test_load_state_dict_errors_are_clear_and_change_nothing():
    model = nn.Sequential(nn.Linear(3, 2), nn.Linear(2, 1))
    before = model.state_dict()
    state = model.state_dict()
    del state["1.bias"]
    state["2.weight"] = np.zeros(1)
    with pytest.raises(RuntimeError) as info:
        model.load_state_dict(state)
    assert '"1.bias"' in str(info.value) and '"2.weight"' in str(info.value)
    assert "Missing" in str(info.value) and "Unexpected" in str(info.value)
    result = model.load_state_dict(state, strict=False)
    assert result.missing_keys == ["1.bias"] and result.unexpected_keys == ["2.weight"]
    bad = model.state_dict()
    bad["0.weight"] = np.ones((3, 2))
    bad["1.weight"] = np.full((1, 2), 7.0)
    with pytest.raises(RuntimeError, match=r"size mismatch for 0\.weight.*\(3, 2\).*\(2, 3\)"):
        model.load_state_dict(bad)
    for key, value in before.items():   # nothing was loaded, not even the good entries
        np.testing.assert_array_equal(model.state_dict()[key], value)


def test_sequential_and_module_list_behave_like_lists():
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    assert len(seq) == 3 and isinstance(seq[-1], nn.Linear)
    head = seq[:2]
    assert isinstance(head, nn.Sequential) and [n for n, _ in head.named_children()] == ["0", "1"]
    seq.append(nn.Sigmoid())
    assert [n for n, _ in seq.named_children()] == ["0", "1", "2", "3"]
    del seq[1]
    assert [type(m).__name__ for m in seq] == ["Linear", "Linear", "Sigmoid"]
    assert [n for n, _ in seq.named_parameters()] == ["0.weight", "0.bias", "1.weight", "1.bias"]
    with pytest.raises(IndexError, match="out of range"):
        seq[5]
    from collections import OrderedDict
    named = nn.Sequential(OrderedDict(fc=nn.Linear(2, 2), act=nn.ReLU()))
    assert [n for n, _ in named.named_parameters()] == ["fc.weight", "fc.bias"]
    items = nn.ModuleList([nn.Linear(1, 1)])
    items += [nn.ReLU()]
    items.insert(0, nn.Tanh())
    assert [type(m).__name__ for m in items] == ["Tanh", "Linear", "ReLU"]
    assert [n for n, _ in items.named_parameters()] == ["1.weight", "1.bias"]


def test_deepcopy_gives_an_independent_model():
    model = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    clone = copy.deepcopy(model)
    clone[0].weight.data[...] = 0
    clone[1].running_mean.data[...] = 5
    assert model[0].weight.data.any() and not model[1].running_mean.data.any()
    assert [n for n, _ in clone.named_parameters()] == [n for n, _ in model.named_parameters()]


# --- hooks --------------------------------------------------------------------------------------
def test_forward_pre_hook_and_forward_hook_like_torch():
    mine, theirs = twins()
    x = np.random.default_rng(1).normal(size=(3, 4))
    calls = {"mg": [], "torch": []}

    def make_hooks(key):
        def pre(module, inputs):
            calls[key].append(("pre", len(inputs)))
            return (inputs[0] * 2,)

        def post(module, inputs, output):
            calls[key].append(("post", tuple(output.shape)))
            return output + 1

        return pre, post

    handles = []
    for key, model in (("mg", mine), ("torch", theirs)):
        pre, post = make_hooks(key)
        handles.append(model.encoder.register_forward_pre_hook(pre))
        handles.append(model.heads[1].register_forward_hook(post))
    out_mg = mine(mg.tensor(x, dtype=np.float64))
    out_t = theirs(torch.from_numpy(x))
    np.testing.assert_allclose(out_mg.data, out_t.detach().numpy(), rtol=1e-10, atol=1e-12)
    assert calls["mg"] == calls["torch"] == [("pre", 1), ("post", (3, 3))]
    for handle in handles:
        handle.remove()
    assert not mine.encoder._forward_pre_hooks and not mine.heads[1]._forward_hooks
    plain = mine(mg.tensor(x, dtype=np.float64))
    np.testing.assert_allclose(plain.data, theirs(torch.from_numpy(x)).detach().numpy(),
                               rtol=1e-10, atol=1e-12)


def test_hook_handle_is_a_context_manager_and_prepend_orders():
    layer = nn.Linear(2, 2)
    order = []
    with layer.register_forward_hook(lambda m, i, o: order.append("a")):
        layer.register_forward_hook(lambda m, i, o: order.append("b"), prepend=True).remove()
        layer.register_forward_hook(lambda m, i, o: order.append("c"), prepend=True)
        layer(mg.tensor(np.ones((1, 2), np.float32)))
    assert order == ["c", "a"]
    assert len(layer._forward_hooks) == 1


def _np(value):
    if hasattr(value, "detach"):
        return value.detach().numpy().copy()
    return np.array(value)


def _grads_by_hooks(model, x, lib_tensor, replace=None):
    """Run forward/backward with a full backward hook on every child; record what they see."""
    seen = {}
    handles = []
    for name, module in model.named_children():
        def hook(module, grad_input, grad_output, name=name):
            seen[name] = ([None if g is None else _np(g) for g in grad_input],
                          [None if g is None else _np(g) for g in grad_output])
            if replace and name in replace:
                return tuple(None if g is None else g * replace[name] for g in grad_input)
            return None
        handles.append(module.register_full_backward_hook(hook))
    inp = lib_tensor(x)
    out = model(inp)
    cotangent = np.random.default_rng(3).normal(size=tuple(out.shape))
    out.backward(lib_tensor(cotangent, grad=False))
    for handle in handles:
        handle.remove()
    return seen, _np(inp.grad)


def _mg_tensor(a, grad=True):
    return mg.tensor(a, requires_grad=grad, dtype=np.float64)


def _torch_tensor(a, grad=True):
    return torch.tensor(a, requires_grad=grad)


@pytest.mark.parametrize("replace", [None, {"2": 3.0, "1": -1.0}], ids=["observe", "replace"])
def test_full_backward_hook_matches_torch(replace):
    torch_model = torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.Tanh(),
                                      torch.nn.Linear(5, 3), torch.nn.ReLU()).double()
    model = nn.Sequential(nn.Linear(4, 5), nn.Tanh(), nn.Linear(5, 3), nn.ReLU()).double()
    model.load_state_dict(torch_model.state_dict())
    x = np.random.default_rng(2).normal(size=(6, 4))
    seen_mg, grad_mg = _grads_by_hooks(model, x, _mg_tensor, replace)
    seen_t, grad_t = _grads_by_hooks(torch_model, x, _torch_tensor, replace)
    assert set(seen_mg) == set(seen_t) == {"0", "1", "2", "3"}
    for name in seen_t:
        for mine, theirs in zip(seen_mg[name], seen_t[name]):
            assert len(mine) == len(theirs)
            for a, b in zip(mine, theirs):
                np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12, err_msg=name)
    np.testing.assert_allclose(grad_mg, grad_t, rtol=1e-10, atol=1e-12)
    assert all(not m._backward_hooks for m in model.modules())


def test_full_backward_hook_on_first_layer_with_data_input():
    """No input needs a gradient: torch calls the hook with grad_input (None,)."""
    layer = nn.Linear(3, 2)
    seen = []
    layer.register_full_backward_hook(lambda m, gi, go: seen.append((gi, go[0].shape)))
    layer(mg.tensor(np.ones((4, 3), np.float32))).sum().backward()
    assert seen == [((None,), (4, 2))]
    assert layer.weight.grad is not None


def test_full_backward_hook_with_two_inputs_and_backward_pre_hook():
    class Mix(nn.Module):
        def forward(self, a, b, scale):
            return a * b * scale

    mix = Mix()
    seen = {}
    mix.register_full_backward_pre_hook(lambda m, go: (go[0] * 10,))
    mix.register_full_backward_hook(lambda m, gi, go: seen.update(gi=gi, go=go))
    a = mg.tensor(np.array([1.0, 2.0]), requires_grad=True, dtype=np.float64)
    b = mg.tensor(np.array([3.0, 4.0]), requires_grad=True, dtype=np.float64)
    mix(a, b, 2.0).sum().backward()
    assert len(seen["gi"]) == 3 and seen["gi"][2] is None
    np.testing.assert_allclose(seen["go"][0], [10.0, 10.0])
    np.testing.assert_allclose(a.grad, [60.0, 80.0])
    np.testing.assert_allclose(b.grad, [20.0, 40.0])


def test_backward_hooks_cost_nothing_under_no_grad_and_leave_outputs_alone():
    layer = nn.Linear(2, 2)
    handle = layer.register_full_backward_hook(lambda m, gi, go: None)
    with mg.no_grad():
        out = layer(mg.tensor(np.ones((1, 2), np.float32)))
    assert not out.requires_grad
    handle.remove()
    assert layer._backward_hooks == {}


def test_forward_requires_a_forward_method():
    class Empty(nn.Module):
        pass

    with pytest.raises(NotImplementedError, match="forward"):
        Empty()(mg.tensor([1.0]))

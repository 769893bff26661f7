"""from_torch / to_torch: same structure, names, weights, dtypes and modes, both ways."""
import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
from minigrad.interop import from_torch, to_torch

torch = pytest.importorskip("torch")


def every_layer_torch():
    tnn = torch.nn
    return tnn.Sequential(
        tnn.Conv2d(1, 4, 3, padding=1), tnn.BatchNorm2d(4), tnn.LeakyReLU(0.1),
        tnn.Conv2d(4, 4, (3, 2), stride=(1, 2), bias=False), tnn.GELU(approximate="tanh"),
        tnn.MaxPool2d(2), tnn.AvgPool2d(1), tnn.Flatten(),
        tnn.Linear(16, 16), tnn.LayerNorm(16), tnn.ReLU(), tnn.Dropout(0.2),
        tnn.Sequential(tnn.Linear(16, 8, bias=False), tnn.BatchNorm1d(8, momentum=None),
                       tnn.Tanh()),
        tnn.Linear(8, 6), tnn.Sigmoid(), tnn.Identity(), tnn.Softmax(dim=1),
    )


def _assert_same_state(mine, theirs):
    mine_state, theirs_state = mine.state_dict(), theirs.state_dict()
    assert list(mine_state) == list(theirs_state)
    for key, value in theirs_state.items():
        expected = value.numpy()
        assert mine_state[key].dtype == expected.dtype, key
        np.testing.assert_array_equal(mine_state[key], expected, err_msg=key)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_from_torch_copies_structure_weights_and_dtype(dtype):
    torch.manual_seed(0)
    theirs = every_layer_torch().to(dtype)
    theirs.train()
    theirs(torch.randn(5, 1, 6, 8, dtype=dtype))   # move the running statistics off their start
    theirs.eval()
    mine = from_torch(theirs)
    assert repr(mine) == repr(theirs)
    assert [n for n, _ in mine.named_modules()] == [n for n, _ in theirs.named_modules()]
    _assert_same_state(mine, theirs)
    assert not any(m.training for m in mine.modules())
    x = np.random.default_rng(0).normal(size=(3, 1, 6, 8))
    out_mine = mine(mg.tensor(x, dtype=np.dtype(str(dtype).split(".")[1])))
    out_theirs = theirs(torch.from_numpy(x).to(dtype))
    tol = 1e-12 if dtype == torch.float64 else 1e-5
    np.testing.assert_allclose(out_mine.data, out_theirs.detach().numpy(), rtol=tol, atol=tol)


def test_round_trips_are_exact_in_float64():
    torch.manual_seed(1)
    original = every_layer_torch().double()
    back = to_torch(from_torch(original))
    assert repr(back) == repr(original)
    for (k1, v1), (k2, v2) in zip(original.state_dict().items(), back.state_dict().items()):
        assert k1 == k2 and v1.dtype == v2.dtype and torch.equal(v1, v2), k1
    mg.manual_seed(2)
    mine = nn.Sequential(nn.Linear(3, 5), nn.ReLU(), nn.BatchNorm1d(5), nn.Linear(5, 2)).double()
    again = from_torch(to_torch(mine))
    for (k1, v1), (k2, v2) in zip(mine.state_dict().items(), again.state_dict().items()):
        assert k1 == k2 and v1.dtype == v2.dtype and np.array_equal(v1, v2), k1


def test_to_torch_gives_the_same_function_and_gradients():
    mg.manual_seed(3)
    mine = nn.Sequential(nn.Conv2d(1, 3, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                         nn.Linear(3 * 4 * 4, 5), nn.LogSoftmax(dim=1)).double()
    theirs = to_torch(mine)
    assert theirs[0].weight.dtype == torch.float64
    x = np.random.default_rng(4).normal(size=(2, 1, 8, 8))
    out_mine = mine(mg.tensor(x, dtype=np.float64))
    out_theirs = theirs(torch.from_numpy(x))
    np.testing.assert_allclose(out_mine.data, out_theirs.detach().numpy(), rtol=1e-12, atol=1e-12)
    g = np.random.default_rng(5).normal(size=out_mine.shape)
    out_mine.backward(g)
    out_theirs.backward(torch.from_numpy(g))
    for (name, p), (_, q) in zip(mine.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(p.grad, q.grad.numpy(), rtol=1e-10, atol=1e-12, err_msg=name)


def test_weights_are_copied_not_shared():
    theirs = torch.nn.Linear(2, 2).double()
    mine = from_torch(theirs)
    with torch.no_grad():
        theirs.weight.zero_()
    assert mine.weight.data.any()
    back = to_torch(mine)
    mine.weight.data[...] = 0
    assert back.weight.detach().abs().sum() > 0


def test_flags_embedding_and_loss_buffers_carry_over():
    theirs = torch.nn.Sequential(torch.nn.Embedding(7, 3, padding_idx=2), torch.nn.Linear(3, 2))
    theirs[1].weight.requires_grad_(False)
    mine = from_torch(theirs)
    assert mine[0].padding_idx == 2
    assert not mine[1].weight.requires_grad and mine[1].bias.requires_grad
    assert mine[0].weight.dtype == np.float32
    loss = torch.nn.CrossEntropyLoss(weight=torch.tensor([1.0, 2.0, 0.5], dtype=torch.float64),
                                     label_smoothing=0.1)
    mine_loss = from_torch(loss)
    np.testing.assert_array_equal(mine_loss.weight.data, [1.0, 2.0, 0.5])
    assert mine_loss.label_smoothing == 0.1
    back = to_torch(mine_loss)
    assert torch.equal(back.weight, loss.weight)
    assert repr(from_torch(torch.nn.BCEWithLogitsLoss(pos_weight=torch.ones(3)))) == \
        "BCEWithLogitsLoss()"


def test_unsupported_layers_raise_a_clear_error():
    with pytest.raises(TypeError, match=r"Bilinear.*not a supported torch\.nn layer"):
        from_torch(torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Bilinear(2, 2, 2)))

    class Custom(torch.nn.Module):
        def forward(self, x):
            return x

    with pytest.raises(TypeError, match="Custom.*own forward"):
        from_torch(Custom())

    class MyNet(nn.Module):
        def forward(self, x):
            return x

    with pytest.raises(TypeError, match="MyNet.*minigrad.nn layer"):
        to_torch(MyNet())
    with pytest.raises(TypeError, match="torch.nn.Module"):
        from_torch(nn.Linear(2, 2))
    with pytest.raises(TypeError, match="minigrad.nn.Module"):
        to_torch(torch.nn.Linear(2, 2))


def test_conversion_leaves_both_random_generators_alone():
    mg.manual_seed(10)
    torch.manual_seed(10)
    source = every_layer_torch()
    mg_state, torch_state = mg.get_rng_state(), torch.get_rng_state()
    model = from_torch(source)
    to_torch(model)
    assert mg.get_rng_state() == mg_state
    assert torch.equal(torch.get_rng_state(), torch_state)

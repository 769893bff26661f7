"""revive_dead_neurons: dead ReLU units get fresh incoming weights, nothing else changes,
and a network that could not learn (most units dead) learns after reviving."""
import numpy as np
import pytest

import nndebug as nd
from nndebug.probes.revive import find_dead_units

torch = pytest.importorskip("torch")
import minigrad as mg  # noqa: E402
import minigrad.nn as mnn  # noqa: E402
import minigrad.optim as moptim  # noqa: E402


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def digits(n=512):
    from minigrad.data import load_digits
    x, y = load_digits()
    order = np.random.default_rng(0).permutation(len(x))[:n]
    return x[order].astype(np.float32), y[order]


def frameworks():
    return {"torch": (torch.nn, torch.optim, lambda a: torch.tensor(a)),
            "minigrad": (mnn, moptim, lambda a: mg.tensor(a))}


def mostly_dead_mlp(framework, seed=0):
    """64-32-32-10 MLP; layer 0 half dead, layer 2 all dead: 48 of 64 hidden units (75%)."""
    nn = frameworks()[framework][0]
    (torch.manual_seed if framework == "torch" else mg.manual_seed)(seed)
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 10))
    kill(model[0].bias, slice(0, 16))
    kill(model[2].bias, slice(None))
    return model


def kill(bias, rows):
    if isinstance(bias, torch.Tensor):
        with torch.no_grad():
            bias[rows] = -50.0
    else:
        bias.data[rows] = -50.0


def arrays(model):
    return {k: np.array(v.detach().numpy() if hasattr(v, "detach") and not isinstance(v, mg.Tensor)
                        else (v.data if isinstance(v, mg.Tensor) else v), copy=True)
            for k, v in model.state_dict().items()}


def train(framework, model, x, y, steps=150, lr=0.1):
    nn, optim, wrap = frameworks()[framework]
    opt = optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    xt, yt = wrap(x), wrap(y)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        idx = rng.choice(len(x), 64, replace=False)
        opt.zero_grad()
        loss = loss_fn(model(wrap(x[idx])), wrap(y[idx]))
        loss.backward()
        opt.step()
    out = model(xt)
    logits = out.detach().numpy() if framework == "torch" else out.data
    return float(loss_fn(out, yt).item()), float(np.mean(logits.argmax(1) == y))


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
def test_revived_network_learns_where_the_dead_one_could_not(framework):
    x, y = digits()
    stuck = train(framework, mostly_dead_mlp(framework), x, y)
    model = mostly_dead_mlp(framework)
    n_dead = sum(len(v) for v in find_dead_units(model, x).values())
    assert n_dead >= 48 and n_dead / 64 > 0.7                 # planted 75% (+ any dead at init)
    assert nd.revive_dead_neurons(model, x) == n_dead
    assert find_dead_units(model, x) == {}
    revived = train(framework, model, x, y)
    assert stuck[1] < 0.25 and stuck[0] > 2.0          # at chance: layer 2 passes nothing on
    assert revived[1] > 0.9 and revived[0] < 0.5 * stuck[0], (stuck, revived)


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
def test_only_the_dead_rows_change_and_rng_modes_hooks_are_kept(framework):
    x, _ = digits(128)
    model = mostly_dead_mlp(framework)
    model.eval()
    adapter = nd.adapt(model)
    before = arrays(model)
    hooks_before = adapter.hook_counts()
    rng_before = adapter.get_rng_state()
    dead = find_dead_units(model, x)
    assert set(range(16)) <= set(dead["0"]) and dead["2"] == list(range(32))
    nd.revive_dead_neurons(model, x)
    after = arrays(model)
    for layer, units in dead.items():
        alive = np.setdiff1d(np.arange(32), units)
        np.testing.assert_array_equal(after[f"{layer}.weight"][alive], before[f"{layer}.weight"][alive])
        np.testing.assert_array_equal(after[f"{layer}.bias"][alive], before[f"{layer}.bias"][alive])
        assert not np.any(after[f"{layer}.weight"][units] == before[f"{layer}.weight"][units])
        np.testing.assert_array_equal(after[f"{layer}.bias"][units], 0.0)
    np.testing.assert_array_equal(after["4.weight"], before["4.weight"])   # outgoing weights kept
    np.testing.assert_array_equal(after["4.bias"], before["4.bias"])
    assert after["0.weight"].dtype == before["0.weight"].dtype
    # Kaiming normal: std sqrt(2 / fan_in)
    assert abs(after["2.weight"].std() - np.sqrt(2 / 32)) < 0.05
    assert not model.training and adapter.hook_counts() == hooks_before
    assert adapter.state_differences({**adapter.capture_state(), "rng": rng_before}) == []


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
def test_healthy_network_is_left_bit_for_bit(framework):
    nn = frameworks()[framework][0]
    x, _ = digits(128)
    x = (x - x.mean(0)) / (x.std(0) + 1e-3)     # centred inputs: no unit dead at initialisation
    (torch.manual_seed if framework == "torch" else mg.manual_seed)(3)
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))
    adapter = nd.adapt(model)
    state = adapter.capture_state()
    assert nd.revive_dead_neurons(model, x) == 0
    assert adapter.state_differences(state) == []


def test_same_seed_same_weights_and_user_rng_untouched():
    x, _ = digits(128)
    a, b = mostly_dead_mlp("torch"), mostly_dead_mlp("torch")
    torch.manual_seed(123)
    expected_next = torch.rand(3)
    torch.manual_seed(123)
    nd.revive_dead_neurons(a, x, seed=5)
    assert torch.equal(torch.rand(3), expected_next)        # global RNG not consumed
    nd.revive_dead_neurons(b, x, seed=5)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))


def test_dead_conv_channels_and_batchnorm_in_between_are_revived():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(1, 6, 3, padding=1), torch.nn.BatchNorm2d(6),
                                torch.nn.ReLU(), torch.nn.Flatten(), torch.nn.Linear(6 * 8 * 8, 10))
    with torch.no_grad():
        model[1].bias[[1, 4]] = -100.0           # the batch-norm shift kills two channels
        model[1].weight[[1, 4]] = 0.5
    x, _ = digits(64)
    images = torch.tensor(x.reshape(-1, 1, 8, 8))
    assert find_dead_units(model, images) == {"0": [1, 4]}
    running_before = model[1].running_mean.clone()
    assert nd.revive_dead_neurons(model, images) == 2
    assert find_dead_units(model, images) == {}
    assert model[1].bias[[1, 4]].tolist() == [0.0, 0.0] and model[1].weight[[1, 4]].tolist() == [1.0, 1.0]
    assert model[1].bias[0].item() == 0.0 and model[1].running_mean[[0, 2, 3, 5]].equal(
        running_before[[0, 2, 3, 5]])                      # batch statistics of the pass undone


def test_not_a_model_is_a_type_error():
    with pytest.raises(TypeError, match="torch.nn.Module and minigrad.nn.Module"):
        nd.revive_dead_neurons(lambda x: x, np.zeros((2, 3)))

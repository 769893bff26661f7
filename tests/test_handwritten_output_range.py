"""TARGETS_OUTSIDE_OUTPUT_RANGE read from a regression error written by hand
(``rules/target_kinds.py``, ``_handwritten_beyond``): a model ending in tanh or sigmoid fitted
by ``((output - y) ** 2).mean()`` to targets it cannot reach is named like the same model under
``F.mse_loss``; the same loops on targets inside the range, or without the squashing layer,
stay silent (real-bug cases line_fit_network_ends_in_tanh_output,
rating_autoencoder_sigmoid_on_last_decoder_layer)."""
import pytest

torch = pytest.importorskip("torch")

import nndebug as nd  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def fit(last, target_scale, error="squared", steps=120, seed=0):
    """A small MLP fitted to ``target_scale * sin(x)`` with a hand-written error; ``last`` is
    the final layer (None: a plain linear output)."""
    torch.manual_seed(seed)
    x = torch.linspace(-3, 3, 256).unsqueeze(1)
    y = target_scale * torch.sin(x)
    layers = [torch.nn.Linear(1, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1)]
    model = torch.nn.Sequential(*layers, *([last] if last is not None else []))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for _ in range(steps):
            rows = torch.randint(0, len(x), (32,))
            output = model(x[rows])
            if error == "squared":
                loss = ((output - y[rows]) ** 2).mean()
            else:
                loss = (y[rows] - output).abs().mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def named(mon):
    return [f for f in mon.findings() if f.code == "TARGETS_OUTSIDE_OUTPUT_RANGE"]


@pytest.mark.parametrize("last, error", [(torch.nn.Tanh(), "squared"),
                                         (torch.nn.Sigmoid(), "absolute")])
def test_squashed_output_against_far_targets_is_named(last, error):
    mon = fit(last, target_scale=10.0, error=error)
    found = named(mon)
    assert found and found[0].severity == "warning", mon.findings()
    assert found[0].evidence["loss"] == "written by hand"
    assert found[0].evidence["target_magnitude"] > 5


@pytest.mark.parametrize("last, scale", [(torch.nn.Tanh(), 0.9), (None, 10.0)])
def test_reachable_targets_or_a_linear_output_stay_silent(last, scale):
    mon = fit(last, target_scale=scale)
    assert not named(mon), mon.findings()
    assert len(mon.run.observed.handwritten_errors) >= 3   # the error was read all the same

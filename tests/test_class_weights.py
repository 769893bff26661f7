"""CLASS_WEIGHTS_REVERSED: weights of a class-index loss that grow with the classes'
frequencies. The check alone (property: inverse-frequency weights never trigger it), and
watch end to end on both frameworks, planted and healthy."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from nndebug.rules.class_weights import weights_follow_frequency


def test_weights_rising_with_frequency_are_found_and_their_inverse_is_not():
    counts = [900, 100]
    assert weights_follow_frequency([1 / 0.1, 1 / 0.9], counts) is not None   # reversed
    assert weights_follow_frequency([1 / 0.9, 1 / 0.1], counts) is None       # balanced
    assert weights_follow_frequency([1.0, 1.0], counts) is None               # no weighting
    assert weights_follow_frequency([2.0, 1.0], [520, 480]) is None           # balanced data
    assert weights_follow_frequency([2.0, 1.0], [90, 10]) is None             # too few targets
    three = weights_follow_frequency([5.0, 2.0, 1.0], [700, 250, 50])
    assert three is not None and three["frequent_class"] == 0 and three["rare_class"] == 2


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 5000), min_size=2, max_size=12), st.floats(0.5, 2.0))
def test_inverse_frequency_weights_never_count_as_reversed(counts, power):
    weights = [1.0 / c ** power for c in counts]
    assert weights_follow_frequency(weights, counts) is None


def _train(framework, reversed_weights, steps=60):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((640, 8)).astype(np.float32)
    y = (rng.random(640) < 0.1).astype(np.int64)           # class 1 is rare (about 10%)
    share = np.bincount(y, minlength=2) / len(y)
    weights = (1 / share)[::-1].copy() if reversed_weights else 1 / share
    import nndebug as nd
    if framework == "torch":
        import torch
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
        loss_fn = torch.nn.CrossEntropyLoss(weight=torch.tensor(weights, dtype=torch.float32))
        tensor = torch.from_numpy
    else:
        import minigrad as mg
        mg.manual_seed(0)
        model = mg.nn.Sequential(mg.nn.Linear(8, 16), mg.nn.ReLU(), mg.nn.Linear(16, 2))
        optimizer = mg.optim.SGD(model.parameters(), lr=0.05)
        loss_fn = mg.nn.CrossEntropyLoss(weight=mg.tensor(weights.astype(np.float32)))
        tensor = mg.tensor
    with nd.watch(model, optimizer) as mon:
        for step in range(steps):
            index = rng.integers(0, len(y), 64)
            optimizer.zero_grad()
            loss = loss_fn(model(tensor(x[index])), tensor(y[index]))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return {f.code: f for f in mon.findings()}


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
@pytest.mark.parametrize("reversed_weights", [True, False], ids=["reversed", "balanced"])
def test_watch_names_reversed_class_weights(framework, reversed_weights):
    if framework == "torch":
        pytest.importorskip("torch")
    found = _train(framework, reversed_weights)
    assert ("CLASS_WEIGHTS_REVERSED" in found) == reversed_weights, sorted(found)
    if reversed_weights:
        evidence = found["CLASS_WEIGHTS_REVERSED"].evidence
        assert evidence["frequent_class"] == 0 and evidence["rare_class"] == 1

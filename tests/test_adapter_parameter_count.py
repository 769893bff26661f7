"""``Adapter.parameter_count``: counted from shapes, for both frameworks, without copying a
parameter (watch() and gradcheck's "auto" mode ask it of models with millions of them)."""
import pytest

from nndebug.adapters import adapt


def _torch_model():
    torch = pytest.importorskip("torch")
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    model[2].weight.requires_grad_(False)
    return model


def _minigrad_model():
    import minigrad.nn as nn
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    model[2].weight.requires_grad = False
    return model


@pytest.mark.parametrize("make", [_torch_model, _minigrad_model], ids=["torch", "minigrad"])
def test_trainable_and_all_parameters_are_counted(make):
    adapter = adapt(make())
    assert adapter.parameter_count() == 3 * 4 + 4 + 2          # the frozen 4x2 weight left out
    assert adapter.parameter_count(trainable_only=False) == 3 * 4 + 4 + 4 * 2 + 2


@pytest.mark.parametrize("make", [_torch_model, _minigrad_model], ids=["torch", "minigrad"])
def test_counting_copies_no_parameter(make, monkeypatch):
    adapter = adapt(make())

    def no_copies(value):
        raise AssertionError("parameter_count copied a parameter to count it")
    monkeypatch.setattr(adapter, "to_numpy", no_copies)
    assert adapter.parameter_count(trainable_only=False) == 26

"""TARGETS_IN_INPUTS for per-position targets (``alignment.probe_target_feature``): a
feature of ``(B, T, F)`` inputs that holds the ``(B, T)`` target of its own or a later
position is named; a lagged target (the last known value), a sequence autoencoder and
unrelated covariates are not."""
import numpy as np
import pytest

import nndebug as nd
from nndebug.probes.dependencies.alignment import probe_target_feature


def _forecast(offset, features=3, samples=16, steps=12, seed=0):
    """(inputs, targets): covariates with the series itself in the last feature, moved so
    that inputs[:, t, -1] == series[t + offset]; targets[:, t] == series[t]."""
    rng = np.random.default_rng(seed)
    series = rng.normal(size=(samples, steps + 8)).astype(np.float32)
    targets = series[:, 4:4 + steps]
    x = rng.normal(size=(samples, steps, features)).astype(np.float32)
    x[:, :, -1] = series[:, 4 + offset:4 + offset + steps]
    return x, targets


@pytest.mark.parametrize("offset", [0, 1, 3])
def test_the_target_of_this_or_a_later_position_among_the_inputs_is_named(offset):
    found = probe_target_feature(*_forecast(offset))
    assert [f.code for f in found] == ["TARGETS_IN_INPUTS"]
    assert found[0].evidence["feature"] == 2 and found[0].evidence["offset"] == offset


@pytest.mark.parametrize("offset", [-1, -2])
def test_a_lagged_target_is_what_autoregressive_models_are_fed(offset):
    assert probe_target_feature(*_forecast(offset)) == []


def test_a_sequence_autoencoder_is_not_a_leak():
    x, y = _forecast(0, features=1)
    assert probe_target_feature(x, y) == []


def test_unrelated_covariates_and_too_few_samples_are_silent():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(16, 12, 3)).astype(np.float32)
    assert probe_target_feature(x, rng.normal(size=(16, 12)).astype(np.float32)) == []
    assert probe_target_feature(*_forecast(0, samples=4)) == []


def test_check_dependencies_names_it_on_a_step_forecaster():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)

    class Forecaster(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.gru = torch.nn.GRU(3, 8, batch_first=True)
            self.head = torch.nn.Linear(8, 1)

        def forward(self, x):
            return self.head(self.gru(x)[0]).squeeze(-1)
    for offset, named in ((0, True), (-1, False)):
        x, y = (torch.as_tensor(a) for a in _forecast(offset))
        codes = {f.code for f in nd.check_dependencies(Forecaster(), x, y).findings}
        assert ("TARGETS_IN_INPUTS" in codes) == named

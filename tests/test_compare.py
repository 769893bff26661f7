"""nndebug.compare: the same network in minigrad and torch, compared module by module."""
import numpy as np
import pytest
import torch

import minigrad as mg
import minigrad.nn as mnn
from minigrad.interop import from_torch
import nndebug as nd
from nndebug.adapters import adapt


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def pair(seed=0):
    torch.manual_seed(seed)
    tm = torch.nn.Sequential(torch.nn.Linear(5, 7), torch.nn.ReLU(), torch.nn.Linear(7, 4),
                             torch.nn.Tanh(), torch.nn.Linear(4, 3))
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((6, 5)).astype(np.float32)
    y = rng.integers(0, 3, 6)
    return from_torch(tm), tm, x, y


def test_identical_networks_agree_everywhere():
    mm, tm, x, y = pair()
    result = nd.compare(mm, tm, x, y, torch.nn.CrossEntropyLoss())
    assert result.first_divergence is None, str(result)
    assert [r.module for r in result.rows] == [n for n, _ in tm.named_modules()]
    assert abs(result.loss_minigrad - result.loss_torch) < 1e-12
    linear = next(r for r in result.rows if r.module == "0")
    assert set(linear.params) == {"weight", "bias"}
    assert all(r.agrees for r in result.rows)
    assert "agree on every output and gradient" in str(result)


@pytest.mark.parametrize("bug, module", [("tanh_not_squared", "3"), ("relu_no_mask", "1"),
                                         ("add_bias_grad_averaged", "4")])
def test_a_planted_minigrad_backward_bug_is_the_first_divergence(bug, module):
    mm, tm, x, y = pair(1)
    with mg.bugs.plant(bug):
        result = nd.compare(mm, tm, x, y, torch.nn.CrossEntropyLoss())
    assert result.first_divergence == module, str(result)
    row = next(r for r in result.rows if r.module == module)
    assert row.output < 1e-9 and not row.agrees
    assert "backward difference" in result.reason


def test_a_forward_difference_is_found_where_it_starts():
    mm, tm, x, y = pair(2)
    mm[2].weight.data[0, 0] += 0.5
    result = nd.compare(mm, tm, x, y, torch.nn.CrossEntropyLoss())
    assert result.first_divergence == "2", str(result)
    assert "forward" in result.reason and "weights differ" in str(result)


def test_loss_given_as_a_pair_a_module_or_a_function():
    mm, tm, x, y = pair(3)
    for loss in [(mnn.CrossEntropyLoss(), torch.nn.CrossEntropyLoss()),
                 (torch.nn.CrossEntropyLoss(), mnn.CrossEntropyLoss()),
                 mnn.CrossEntropyLoss(), torch.nn.CrossEntropyLoss(label_smoothing=0.1)]:
        assert nd.compare(mm, tm, x, y, loss).first_divergence is None
    target = np.random.default_rng(0).standard_normal((6, 3))
    mse = nd.compare(mm, tm, x, target, lambda out, t: ((out - t) ** 2).mean())
    assert mse.first_divergence is None, str(mse)


def test_different_losses_diverge_at_the_loss():
    mm, tm, x, y = pair(4)
    result = nd.compare(mm, tm, x, y, (mnn.CrossEntropyLoss(),
                                       torch.nn.CrossEntropyLoss(reduction="sum")))
    assert result.first_divergence == "(loss)"
    assert "loss function" in str(result)


def test_dropout_and_batchnorm_models_compare_in_a_fair_way():
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(5, 6), torch.nn.BatchNorm1d(6), torch.nn.ReLU(),
                             torch.nn.Dropout(0.5), torch.nn.Linear(6, 3))
    mm = from_torch(tm)
    mm.train()
    tm.train()
    x = np.random.default_rng(0).standard_normal((8, 5))
    y = np.array([0, 1, 2, 0, 1, 2, 0, 1])
    result = nd.compare(mm, tm, x, y, torch.nn.CrossEntropyLoss())
    assert result.first_divergence is None, str(result)
    assert any("dropout" in n for n in result.notes)
    assert tm.training and mm.training and tm[3].training


def test_neither_model_is_changed():
    mm, tm, x, y = pair(5)
    tm[0].register_forward_hook(lambda *a: None)
    states = [(a, a.capture_state()) for a in (adapt(mm), adapt(tm))]
    with mg.bugs.plant("tanh_not_squared"):
        nd.compare(mm, tm, x, y, torch.nn.CrossEntropyLoss())
    for adapter, state in states:
        assert adapter.state_differences(state) == []
    assert next(tm.parameters()).dtype == torch.float32


def test_clear_errors_for_wrong_pairs():
    mm, tm, x, y = pair(6)
    with pytest.raises(TypeError, match="one minigrad model and one torch model"):
        nd.compare(tm, tm, x, y, torch.nn.CrossEntropyLoss())
    other = torch.nn.Sequential(torch.nn.Linear(5, 3))
    with pytest.raises(ValueError, match="same parameters"):
        nd.compare(mm, other, x, y, torch.nn.CrossEntropyLoss())
    with pytest.raises(TypeError, match="pair"):
        nd.compare(mm, tm, x, y, (len,))


def test_models_may_be_given_in_either_order():
    mm, tm, x, y = pair(7)
    assert nd.compare(tm, mm, x, y, torch.nn.CrossEntropyLoss()).first_divergence is None

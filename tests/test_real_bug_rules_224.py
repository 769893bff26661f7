"""Real-bug batch 224 (remote sensing): inputs converted to another unit and then normalised
with statistics of the first unit - every column near one offset, moving by float noise -
are CONSTANT_INPUTS although no column is exactly constant. Torch only: the per-column
spreads come from run.observed.channel_scales, which reads torch inputs. Healthy twins:
standardised inputs, and a table with one raw large-offset column among standardised ones."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import dn_rescaled_then_zscored_with_dn_statistics as rescaled  # noqa: E402,E501
from benchmarks.real_bugs._common import classification, mlp  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _digits(prepare, steps=60):
    torch.manual_seed(0)
    x, y = classification()
    x = prepare(x * 16)                          # pixel counts 0..16
    model = mlp(inputs=x.shape[1])
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer) as mon:
        for _ in range(steps):
            index = torch.randint(len(x), (64,))
            loss = loss_fn(model(x[index]), y[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def _standardise_raw(x):
    return (x - x.mean(0)) / (x.std(0) + 1e-6)


def _rescaled_then_standardised_with_raw_statistics(x):
    mean, std = x.mean(0) + 5, x.std(0) + 1     # every column given a raw offset
    return (x / 1e4 - mean) / std


def _with_a_year_column(x):
    x = _standardise_raw(x)
    year = 2015 + torch.randint(0, 8, (len(x), 1)).float()
    return torch.cat([x, year], 1)


def test_inputs_near_one_offset_are_named():
    found = _problems(_digits(_rescaled_then_standardised_with_raw_statistics))
    assert "CONSTANT_INPUTS" in found, found


def test_standardised_inputs_stay_silent():
    assert "CONSTANT_INPUTS" not in _problems(_digits(_standardise_raw))


def test_one_raw_large_offset_column_is_not_constant_inputs():
    assert "CONSTANT_INPUTS" not in _problems(_digits(_with_a_year_column))


def test_the_benchmark_case_and_its_twin():
    assert "CONSTANT_INPUTS" in _problems(rescaled.run(fixed=False))
    assert not _problems(rescaled.run(fixed=True))

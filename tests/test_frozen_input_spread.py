"""FROZEN_PARAMETERS reads a frozen weight's columns too (real-bug batch 195). A first layer
pretrained for 300 steps on the digits and frozen for test-time adaptation (Tent's healthy
twin) kept a fresh xavier-normal draw's std, kurtosis and row spread, and drew the warning
"never trained"; its columns (one per input pixel) spread 0.33 where a draw has 0.18, since
training moves the weights of the pixels that carry ink and not those of the blank border.
Fresh frozen layers still read as fresh, at every shape the margin was simulated for."""
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import tent_adapted_in_eval_mode_on_source_statistics as tent  # noqa: E402,E501
from nndebug.observed import FrozenTensor  # noqa: E402
from nndebug.rules.structure import looks_freshly_initialised  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def test_the_tent_twins_pretrained_frozen_layer_is_not_called_fresh():
    mon = tent.run(fixed=True)
    frozen = {t.name: t for t in mon.run.observed.frozen}
    first = frozen["features.0.weight"]
    assert first.input_columns == 64 and first.input_spread > 0.25
    assert looks_freshly_initialised(first) is None
    assert "FROZEN_PARAMETERS" not in _problems(mon)


@pytest.mark.parametrize("shape", [(2, 512), (3, 256), (10, 128), (64, 64), (128, 32),
                                   (16, 8, 3, 3)])
def test_fresh_frozen_layers_still_look_fresh(shape):
    torch.manual_seed(0)
    misses = 0
    for seed in range(20):
        torch.manual_seed(seed)
        layer = torch.nn.Linear(shape[1], shape[0]) if len(shape) == 2 else \
            torch.nn.Conv2d(shape[1], shape[0], shape[2])
        model = torch.nn.Sequential(layer, torch.nn.Flatten(), torch.nn.LazyLinear(2)) \
            if len(shape) > 2 else torch.nn.Sequential(layer, torch.nn.Linear(shape[0], 2))
        if len(shape) > 2:
            model(torch.zeros(1, shape[1], 6, 6))
        layer.requires_grad_(False)
        optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.0)
        with nd.watch(model, optimizer) as mon:
            pass
        tensor = next(t for t in mon.run.observed.frozen if t.name == "0.weight")
        misses += looks_freshly_initialised(tensor) is None
    assert misses <= 1


def test_a_weight_whose_inputs_moved_apart_is_not_fresh():
    rng = np.random.default_rng(0)
    w = rng.normal(0.0, 1.0 / 8.0, (64, 64))
    kept = dict(name="w", shape=(64, 64), fan_in=64, fan_out=64, mean=float(w.mean()),
                std=float(w.std()), absmax=float(np.abs(w).max()),
                kurtosis=float(((w - w.mean()) ** 4).mean() / w.std() ** 4))
    rows, cols = (w ** 2).sum(1), (w ** 2).sum(0)
    fresh = FrozenTensor(**kept, unit_spread=float(rows.std() / rows.mean()), unit_rows=64,
                         input_spread=float(cols.std() / cols.mean()), input_columns=64)
    assert looks_freshly_initialised(fresh) is not None
    moved = FrozenTensor(**kept, unit_spread=fresh.unit_spread, unit_rows=64,
                         input_spread=2 * math.sqrt(2 / 64), input_columns=64)
    assert looks_freshly_initialised(moved) is None
    unread = FrozenTensor(**kept, unit_spread=fresh.unit_spread, unit_rows=64)
    assert looks_freshly_initialised(unread) == looks_freshly_initialised(fresh)

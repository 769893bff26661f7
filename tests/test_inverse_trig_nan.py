"""A NaN born in the backward of acos(tanh(x)) (real-bug batch 340: a Chebyshev KAN's
cos(n * acos(tanh(x))), ChebyKAN#11): tanh rounds to exactly +-1 once its input passes about
9, acos's derivative is infinite there, and 0 x inf is NaN. Named NAN_BORN_IN_BACKWARD from
the structure the origin watch read on its first steps (``inverse_trig_of_squashed`` in
``monitor/fragile_operations.py``), also when the first NaN shows on a recorded step's
gradients under a finite loss (``rules/nonfinite_origins.py``). Planted: the benchmark's
case at both seed settings, asin(tanh) in another model. Healthy: the report's fix
(x 0.99), a clamp strictly inside (-1, 1), an acos of a tanh that never saturates (no NaN:
nothing said), and the structure tests on hand-made graphs."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.bench_real_bugs import shifted_seeds  # noqa: E402
from benchmarks.real_bugs import chebykan_acos_of_saturated_tanh as chebykan  # noqa: E402
from benchmarks.real_bugs._common import batches, classification  # noqa: E402
from nndebug.monitor.fragile_operations import inverse_trig_of_squashed  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
CODE = "NAN_BORN_IN_BACKWARD"


def _found(mon):
    return {f.code: f for f in mon.findings() if f.severity in ("warning", "error")}


@pytest.mark.parametrize("shift", [0, 1000])
def test_the_chebyshev_kan_is_named_at_both_seed_settings(shift):
    with shifted_seeds(shift):
        found = _found(chebykan.run(steps=40))
    assert CODE in found
    assert found[CODE].evidence["operation"] == "acos(tanh)"
    assert "strictly inside (-1, 1)" in found[CODE].fix


def test_the_fixed_chebyshev_kan_is_silent():
    assert not _found(chebykan.run(fixed=True, steps=80))


class InverseSine(nn.Module):
    """A layer whose features are asin of a squashed projection; ``guard`` shrinks it."""

    def __init__(self, guard=None):
        super().__init__()
        self.project = nn.Linear(64, 32)
        self.head = nn.Linear(32, 10)
        self.guard = guard

    def forward(self, x):
        t = torch.tanh(self.project(x))
        if self.guard == "clamp":
            t = t.clamp(-1 + 1e-6, 1 - 1e-6)
        return self.head(torch.asin(t))


def _train(model, steps=30, lr=1e-2, scale=1.0):
    torch.manual_seed(0)
    x, y = classification()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x * scale, y, steps, seed=0):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_asin_of_tanh_in_another_model_is_named():
    """Pixels on a 0-64 scale and a brisk rate: some projections pass 9 within a few steps."""
    torch.manual_seed(1)
    mon = _train(InverseSine(), lr=5e-2, scale=4.0)
    assert mon.run.observed.fragile_operations[0][2] == "asin(tanh)"
    assert CODE in _found(mon)


def test_asin_of_a_clamp_strictly_inside_is_not_a_fragile_chain():
    torch.manual_seed(1)
    mon = _train(InverseSine(guard="clamp"), lr=5e-2, scale=4.0)
    assert not any("asin" in note[2] for note in mon.run.observed.fragile_operations)
    assert CODE not in _found(mon)


def test_acos_of_a_tanh_that_never_saturates_says_nothing():
    """The structure alone is no finding: the run stays finite."""
    torch.manual_seed(2)
    model = nn.Sequential(nn.Linear(64, 32), nn.Tanh(), nn.Linear(32, 10))

    class Wrapped(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = model

        def forward(self, x):
            return torch.acos(torch.tanh(self.body(x) * 0.1))

    mon = _train(Wrapped(), steps=40, lr=1e-3, scale=1 / 16)
    assert not any(f.code.startswith("NAN") for f in mon.findings())


@pytest.mark.parametrize("build, described", [
    (lambda x: torch.acos(torch.tanh(x)), "acos(tanh)"),
    (lambda x: torch.acos(torch.tanh(x) * 1.0), "acos(tanh)"),
    (lambda x: torch.asin(torch.tanh(x).unsqueeze(-1)), "asin(tanh)"),
    (lambda x: torch.acos(torch.tanh(x) * 0.99), None),
    (lambda x: torch.acos(torch.tanh(x).clamp(-0.999, 0.999)), None),
    (lambda x: torch.acos(torch.tanh(x).clamp(-1.0, 1.0)), "acos(tanh)"),
    (lambda x: torch.acos(torch.sigmoid(x)), None),
    (lambda x: torch.acos(x.clamp(-1, 1)), None),
    (lambda x: torch.asin(F.hardtanh(x)), None),    # its backward masks the flat parts
])
def test_the_structure_test_reads_the_argument_chain(build, described):
    x = torch.randn(4, 3, requires_grad=True)
    node = build(x).grad_fn
    name = "acos" if "Acos" in type(node).__name__ else "asin"
    assert inverse_trig_of_squashed(node, name, torch.float32) == described

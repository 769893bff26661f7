"""A layer built for zero input features (real-bug batch 347: TabNet's attentive layers given
an empty split when feature_dim equals output_dim).

Its weight has no elements. watch measured every weight's rows at start and failed on the
empty one (MONITOR_ERROR: "amax(): Expected reduction dim"), losing statistics for the whole
run; now the empty weight is skipped. NO_GRADIENT, which names the layers that never learn,
says which weights hold no elements and what that means."""
import pytest

torch = pytest.importorskip("torch")

import nndebug as nd  # noqa: E402
from benchmarks.bench_real_bugs import warnings_unprinted  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


class SplitNet(torch.nn.Module):
    """A body whose output is split into a part for the head and a part for a gate layer;
    ``gate_width`` 0 leaves the gate layer an empty slice."""

    def __init__(self, gate_width):
        super().__init__()
        self.gate_width = gate_width
        self.body = torch.nn.Linear(8, 16 + gate_width)
        self.gate = torch.nn.Linear(gate_width, 16)
        self.norm = torch.nn.BatchNorm1d(16)
        self.head = torch.nn.Linear(16, 3)

    def forward(self, x):
        h = torch.relu(self.body(x))
        features, gate_input = h[:, :16], h[:, 16:]
        gate = torch.sigmoid(self.norm(self.gate(gate_input)))
        return self.head(features * gate)


def _findings(gate_width, steps=30):
    torch.manual_seed(0)
    x, y = torch.randn(256, 8), torch.randint(0, 3, (256,))
    model = SplitNet(gate_width)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with warnings_unprinted(), nd.watch(model, optimizer) as mon:
        for step in range(steps):
            rows = slice(32 * (step % 8), 32 * (step % 8 + 1))
            loss = torch.nn.functional.cross_entropy(model(x[rows]), y[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon.findings()


def test_an_empty_weight_breaks_no_measurement_and_is_explained():
    found = _findings(gate_width=0)
    assert "MONITOR_ERROR" not in {f.code for f in found}
    no_gradient = [f for f in found if f.code == "NO_GRADIENT"]
    assert no_gradient and no_gradient[0].evidence["empty"] == ["gate.weight"]
    assert "hold no elements" in no_gradient[0].message


def test_the_same_net_with_a_gate_input_is_silent():
    found = _findings(gate_width=4)
    assert not {f.code for f in found if f.severity in ("warning", "error")} & \
        {"NO_GRADIENT", "MONITOR_ERROR"}


class ZeroUnitBranch(torch.nn.Module):
    """A branch of 0 units beside the real head (a layer width computed as 0): its output
    is an empty (batch, 0) tensor, whose statistics (an absolute maximum) do not exist."""

    def __init__(self):
        super().__init__()
        self.empty = torch.nn.Linear(8, 0)
        self.head = torch.nn.Linear(8, 3)

    def forward(self, x):
        return self.head(x) + self.empty(x).sum(1, keepdim=True)


def test_an_empty_layer_output_is_left_unmeasured():
    torch.manual_seed(0)
    model = ZeroUnitBranch()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with warnings_unprinted(), nd.watch(model, optimizer, every=1) as mon:
        for _ in range(12):
            x, y = torch.randn(16, 8), torch.randint(0, 3, (16,))
            loss = torch.nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert "MONITOR_ERROR" not in {f.code for f in mon.findings()}
    assert all("empty" not in r.activations for r in mon.run.records)
    assert any("head" in r.activations for r in mon.run.records)

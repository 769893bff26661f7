"""A softmax called without dim (real-bug batch 333: a CapsNet's routing softmax over the
input capsules, higgsfield/Capsule-Network-Tutorial#7). torch warns once and picks dim 0 for
3-D tensors, dim 1 for 4-D and more; watch keeps the warning with the input's dimensions
(``monitor/raised_warnings.py``) and names it a warning from 3 dimensions on, info on 2-D
(torch's choice is then the rows). The warning also points at the user's own line, not at
the monitor's function mode that sat between the call and torch."""
import warnings

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import capsule_routing_softmax_without_dim_over_input_capsules as capsule  # noqa: E402,E501
from benchmarks.real_bugs._common import batches, classification  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


class Pooled(nn.Module):
    """Rows of the digit as a sequence, attention-pooled; ``mode`` picks the softmax call."""

    def __init__(self, mode):
        super().__init__()
        self.embed, self.score, self.head = nn.Linear(8, 16), nn.Linear(16, 1), nn.Linear(16, 10)
        self.mode = mode

    def forward(self, x):
        h = torch.tanh(self.embed(x.view(-1, 8, 8)))            # (N, 8 rows, 16)
        scores = self.score(h)                                   # (N, 8, 1)
        if self.mode == "implicit_3d":
            weights = F.softmax(scores)                          # dim 0: across the batch
        elif self.mode == "implicit_2d":
            weights = F.softmax(scores.squeeze(-1)).unsqueeze(-1)    # dim 1: the rows
        else:
            weights = F.softmax(scores, dim=1)
        return self.head((weights * h).sum(1))


def _train(mode, steps=20):
    torch.manual_seed(0)
    x, y = classification()
    model = Pooled(mode)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        with nd.watch(model, optimizer) as mon:
            for xb, yb in batches(x / 16, y, steps, seed=0):
                optimizer.zero_grad()
                loss = F.cross_entropy(model(xb), yb)
                loss.backward()
                optimizer.step()
                mon.step(loss)
    return mon, shown


def _framework(mon):
    return [f for f in mon.findings() if f.code == "FRAMEWORK_WARNING"]


def test_a_3d_softmax_without_dim_is_a_warning_that_names_the_batch_axis():
    mon, shown = _train("implicit_3d")
    found = _framework(mon)
    assert found and found[0].severity == "warning"
    assert found[0].evidence["input_dims"] == 3 and found[0].evidence["dim_chosen"] == 0
    assert "batch axis" in found[0].message and "dim=-1" in found[0].fix
    # what the user sees points at this file, not at nndebug's function mode
    implicit = [w for w in shown if "Implicit dimension" in str(w.message)]
    assert implicit and all(w.filename == __file__ for w in implicit)
    assert found[0].evidence["file"] == __file__


def test_a_2d_softmax_without_dim_stays_info():
    mon, _ = _train("implicit_2d")
    found = _framework(mon)
    assert found and all(f.severity == "info" for f in found)
    assert mon.run.observed.warnings[0].input_dims == 2


def test_an_explicit_dim_raises_nothing():
    mon, _ = _train("explicit")
    assert not _framework(mon)


def test_the_capsule_case_is_named_and_its_twin_silent():
    found = _framework(capsule.run(steps=30))
    assert found and found[0].severity == "warning" and found[0].evidence["dim_chosen"] == 1
    assert not [f for f in capsule.run(fixed=True, steps=30).findings()
                if f.severity in ("warning", "error")]

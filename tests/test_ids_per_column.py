"""The dependency probes on tabular categorical ids, each column with its own range of ids
(real-bug batch 352: a DeepFM adding per-field offsets into one embedding table). Ids drawn
from the whole batch put a small field's id out of its range and the model fails, so the
probe retries with ids drawn from each column's own values (``perturbed_rows(...,
per_column=True)``). Planted: a model that sums a term over the batch. Healthy: its fixed
twin, and the property that every replaced id is one its column holds."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from nndebug.probes.dependencies.batch import perturbed_rows  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
SIZES = (3, 50, 7, 20)


class Fields(nn.Module):
    """One table for every field, each field's ids moved by its offset (the CTR habit)."""

    def __init__(self, mixes):
        super().__init__()
        self.register_buffer("offsets", torch.tensor(np.cumsum((0,) + SIZES[:-1])))
        self.embed = nn.Embedding(sum(SIZES), 4)
        self.head = nn.Linear(len(SIZES) * 4, 1)
        self.mixes = mixes

    def forward(self, fields):
        v = self.embed(fields + self.offsets)
        out = self.head(v.flatten(1)).squeeze(1)
        return out + (v.sum() if self.mixes else v.sum((1, 2)))   # the batch in one number


def _fields(n=64, seed=0):
    rng = np.random.default_rng(seed)
    return torch.from_numpy(np.stack([rng.integers(0, s, n) for s in SIZES], 1))


def test_a_sum_over_the_batch_is_found_through_per_column_ids():
    torch.manual_seed(0)
    result = nd.check_dependencies(Fields(mixes=True), _fields())
    assert "batch mixing" in result.checked
    assert any(f.code == "BATCH_MIXING" and f.severity == "error" for f in result.findings)


def test_the_per_sample_twin_passes():
    torch.manual_seed(0)
    result = nd.check_dependencies(Fields(mixes=False), _fields())
    assert "batch mixing" in result.checked
    assert not [f for f in result.findings if f.code == "BATCH_MIXING"]


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 12), st.integers(1, 5), st.integers(0, 10_000))
def test_each_replaced_id_is_one_its_column_holds(rows, columns, seed):
    rng = np.random.default_rng(seed)
    x = np.stack([rng.integers(0, 2 + 5 * c, rows) for c in range(columns)], 1)
    changed = perturbed_rows(x, range(rows), {0: ..., rows - 1: columns - 1}, rng,
                             per_column=True)
    for c in range(columns):
        assert set(changed[:, c]) <= set(x[:, c])
        if len(set(x[:, c])) > 1:
            assert changed[0, c] != x[0, c]      # the whole first sample moved
    assert (changed[1:rows - 1] == x[1:rows - 1]).all()

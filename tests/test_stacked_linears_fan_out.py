"""LINEAR_LAYERS_STACKED leaves alone a Linear whose output is read beside the next Linear.

``h = stem(x); h + block(h)`` with a block that opens with a Linear: the stem and the
block's first layer meet with nothing between them, yet the stem's output is also the skip,
so the pair is no single affine map with wasted width (batch 216's healthy residual twin was
named before). The same holds for an attention written by hand whose queries, keys and
values all read a Linear input projection. Planted: the same models with the second reader
taken away (no skip; one Linear where q, k and v were), on 2-D and 3-D inputs; both named.
Torch only: the consumer count is read from torch's graph of the forward
(``graph_walks.ForwardGraph``); minigrad keeps every pair it finds (tested in
``test_a_minigrad_pair_is_still_named``)."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs._common import batches, classification  # noqa: E402
from nndebug.monitor.stacked_linears import consumer_counts  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def _train(model, steps=30, sequence=False):
    """Digits (as 8 rows of 8 pixels when ``sequence``), cross-entropy, Adam, under watch."""
    x, y = classification()
    if sequence:
        x = x.reshape(len(x), 8, 8)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


class ResidualMLP(nn.Module):
    """A Linear stem, then one residual block whose branch opens with a Linear."""

    def __init__(self, skip=True):
        super().__init__()
        self.skip = skip
        self.stem = nn.Linear(64, 64)
        self.fc1, self.norm, self.fc2 = nn.Linear(64, 64), nn.BatchNorm1d(64), nn.Linear(64, 64)
        self.head = nn.Linear(64, 10)

    def forward(self, x):
        h = self.stem(x)
        branch = self.fc2(torch.relu(self.norm(self.fc1(h))))
        return self.head(torch.relu(h + branch if self.skip else branch))


class TinyAttention(nn.Module):
    """Rows of 8 pixels projected by a Linear, then one head of self-attention whose
    queries, keys and values are Linear layers reading the projection (``shared=False``:
    one Linear's output is the queries, keys and values at once)."""

    def __init__(self, shared=False):
        super().__init__()
        self.shared = shared
        self.embed = nn.Linear(8, 32)
        self.q = nn.Linear(32, 32)
        if not shared:
            self.k, self.v = nn.Linear(32, 32), nn.Linear(32, 32)
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        h = self.embed(x)
        q = self.q(h)
        k, v = (q, q) if self.shared else (self.k(h), self.v(h))
        weights = torch.softmax(q @ k.transpose(1, 2) / 32 ** 0.5, dim=-1)
        return self.head(torch.relu(weights @ v).mean(dim=1))


def test_a_stem_that_also_feeds_the_skip_is_silent():
    torch.manual_seed(0)
    mon = _train(ResidualMLP(skip=True))
    assert "LINEAR_LAYERS_STACKED" not in _codes(mon)
    assert mon.run.observed.stacked_linears == []


def test_the_same_stem_without_the_skip_is_named():
    torch.manual_seed(0)
    mon = _train(ResidualMLP(skip=False))
    assert "LINEAR_LAYERS_STACKED" in _codes(mon)
    assert [row[1:3] for row in mon.run.observed.stacked_linears] == [("stem", "fc1")]


def test_a_projection_read_by_queries_keys_and_values_is_silent():
    torch.manual_seed(0)
    mon = _train(TinyAttention(shared=False), sequence=True)
    assert "LINEAR_LAYERS_STACKED" not in _codes(mon)


def test_a_projection_read_by_one_linear_on_sequences_is_named():
    """3-D activations: the pair is still found through the reshapes torch puts around
    the matrix product, and the second Linear is the projection's only reader."""
    torch.manual_seed(0)
    mon = _train(TinyAttention(shared=True), sequence=True)
    assert "LINEAR_LAYERS_STACKED" in _codes(mon)
    assert ("embed", "q") in [row[1:3] for row in mon.run.observed.stacked_linears]


def test_consumers_are_counted_per_edge():
    x = torch.randn(4, 3, requires_grad=True)
    h = x * 2
    once, twice = h.sum(), (h + h.exp()).sum()
    from nndebug.monitor.graph_walks import nodes_under
    assert consumer_counts(nodes_under([once.grad_fn]), {id(h.grad_fn)}) == {id(h.grad_fn): 1}
    assert consumer_counts(nodes_under([twice.grad_fn]), {id(h.grad_fn)}) == {id(h.grad_fn): 2}


def test_a_minigrad_pair_is_still_named():
    """No graph walk on minigrad: a pair is kept as found (the rule as before)."""
    mg = pytest.importorskip("minigrad")
    import minigrad.nn as mnn
    import minigrad.optim as moptim
    mg.manual_seed(0)
    model = mnn.Sequential(mnn.Linear(64, 128), mnn.Linear(128, 10))
    optimizer = moptim.Adam(model.parameters(), lr=1e-3)
    loss_fn = mnn.CrossEntropyLoss()
    x, y = classification()
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, 30):
            optimizer.zero_grad()
            loss = loss_fn(model(mg.tensor(xb.numpy())), mg.tensor(yb.numpy()))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert "LINEAR_LAYERS_STACKED" in _codes(mon)

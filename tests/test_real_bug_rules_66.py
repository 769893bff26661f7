"""Real-bug batch 66 (graph neural networks): BATCHED_EDGES_NOT_OFFSET
(``rules/batched_edges.py``, read from the index gathers and scatters of the forward's
graph, ``monitor/scattered_messages.py``) and POOLED_OVER_FEATURES
(``rules/feature_axis_readouts.py``, a layer reading a reduction over a layer's features,
``monitor/feature_axis_readouts.py``), and the dependency probe's graph check widened to
senders and receivers passed as two index vectors (no BATCH_MIXING on message passing).

Each is named on its planted case (google-deepmind/graph_nets#135, flyingdoog/PGExplainer#6)
and on a variant (a PyG-style scatter_add over a (2, E) edge_index; a set model summing its
token features), and silent on the fixed twins and on set-ups that look alike and are fine:
a neighbour-sampled batch whose targets come first, one graph with isolated nodes, a
global average pool over a convolution's length, a hand-written layer norm, and a model
that reads one number per frame on purpose and learns.
"""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import batched_graph_edges_not_offset as batched_case  # noqa: E402
from benchmarks.real_bugs import graph_readout_pooled_over_feature_axis as readout_case  # noqa: E402,E501
from benchmarks.real_bugs._common import classification  # noqa: E402
from nndebug.monitor.feature_axis_readouts import measure_readouts  # noqa: E402
from nndebug.monitor.graph_walks import nodes_under  # noqa: E402
from nndebug.monitor.scattered_messages import measure_scatters  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
OFFSET, READOUT = "BATCHED_EDGES_NOT_OFFSET", "POOLED_OVER_FEATURES"


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def _train(model, batches, lr=3e-3):
    """batches: callables returning (inputs tuple, targets)."""
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    with nd.watch(model, optimizer) as mon:
        for inputs, y in batches:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(*inputs), y)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


# --- BATCHED_EDGES_NOT_OFFSET -------------------------------------------------------------

def test_planted_unshifted_batch_is_named_and_its_twin_is_silent():
    bug = batched_case.run(steps=40)
    assert OFFSET in _codes(bug)
    assert "BATCH_MIXING" not in {f.code for f in bug.findings()}
    assert not _codes(batched_case.run(fixed=True, steps=40))


class ScatterSage(nn.Module):
    """PyG-style: messages by edge_index (2, E), summed with scatter_add, then averaged."""

    def __init__(self):
        super().__init__()
        self.self1, self.nb1 = nn.Linear(64, 64), nn.Linear(64, 64)
        self.out = nn.Linear(64, 10)

    def forward(self, x, edge_index):
        h = F.relu(self.self1(x))
        source, target = edge_index
        messages = self.nb1(h)[source]
        index = target[:, None].expand(-1, messages.shape[1])
        total = torch.zeros_like(h).scatter_add(0, index, messages)
        count = torch.zeros(len(h)).index_add_(0, target, torch.ones(len(target)))
        return self.out(h + total / count.clamp(min=1)[:, None])


def _graph_batches(steps, offset, graphs=12, nodes=10, seed=0):
    generator = torch.Generator().manual_seed(seed)
    x, y = classification()
    for _ in range(steps):
        xs, ys, edges = [], [], []
        for g in range(graphs):
            picks = torch.randint(0, len(x), (nodes,), generator=generator)
            xs.append(x[picks])
            ys.append(y[picks])
            ring = torch.arange(nodes)
            local = torch.stack([torch.cat([ring, (ring + 1) % nodes]),
                                 torch.cat([(ring + 1) % nodes, ring])])
            edges.append(local + (g * nodes if offset else 0))
        yield (torch.cat(xs), torch.cat(edges, 1)), torch.cat(ys)


def test_variant_scatter_add_over_an_edge_index_is_named():
    torch.manual_seed(0)
    assert OFFSET in _codes(_train(ScatterSage(), _graph_batches(12, offset=False)))
    torch.manual_seed(0)
    assert OFFSET not in _codes(_train(ScatterSage(), _graph_batches(12, offset=True)))


def _sampled_batches(steps, targets=32, sampled=96, seed=0):
    """A neighbour-sampled batch: the targets first, their sampled neighbours after them;
    every message runs from a neighbour row (anywhere) to a target row (the first block)."""
    generator = torch.Generator().manual_seed(seed)
    x, y = classification()
    for _ in range(steps):
        picks = torch.randint(0, len(x), (targets + sampled,), generator=generator)
        source = torch.arange(targets, targets + sampled)
        target = torch.randint(0, targets, (sampled,), generator=generator)
        yield (x[picks], torch.stack([source, target])), y[picks]


def test_neighbour_sampled_batch_with_targets_first_is_silent():
    torch.manual_seed(0)
    assert OFFSET not in _codes(_train(ScatterSage(), _sampled_batches(12)))


def test_one_graph_with_isolated_nodes_is_silent():
    generator = torch.Generator().manual_seed(1)
    x, y = classification()
    x, y = x[:200], y[:200]
    source = torch.randint(0, 200, (300,), generator=generator)
    target = torch.randint(0, 200, (300,), generator=generator)
    edges = torch.stack([source, target])         # about a fifth of the nodes isolated
    torch.manual_seed(0)
    mon = _train(ScatterSage(), [((x, edges), y)] * 12)
    assert OFFSET not in _codes(mon)
    assert mon.run.observed.scattered_messages      # measured, and found reaching every row


def test_measure_scatters_reads_senders_and_receivers():
    h = torch.randn(40, 4, requires_grad=True)
    senders, receivers = torch.tensor([0, 1, 2, 3]), torch.tensor([1, 2, 3, 0])
    out = torch.zeros(40, 4).index_add_(0, receivers, h[senders])
    assert measure_scatters(nodes_under([out.grad_fn])) == [(40, 4, 4, 4)]
    out = torch.zeros(40, 4).index_add_(0, receivers + 30, h[senders + 20])
    assert measure_scatters(nodes_under([out.grad_fn])) == [(40, 4, 24, 34)]


# --- POOLED_OVER_FEATURES ------------------------------------------------------------

def test_planted_feature_axis_readout_is_named_and_its_twin_is_silent():
    assert READOUT in _codes(readout_case.run())
    assert not _codes(readout_case.run(fixed=True))


class SetModel(nn.Module):
    """Sets of noisy digit images: encode each element, sum over the LAST axis (the bug)."""

    def __init__(self, elements, over_features):
        super().__init__()
        self.over_features = over_features
        self.encode = nn.Linear(64, 48)
        self.head = nn.Linear(elements if over_features else 48, 10)

    def forward(self, x):
        h = torch.tanh(self.encode(x))
        return self.head(h.sum(dim=-1) if self.over_features else h.sum(dim=1))


def _set_batches(steps, elements=10, seed=0):
    generator = torch.Generator().manual_seed(seed)
    x, y = classification()
    members = [torch.nonzero(y == c).squeeze(1) for c in range(10)]
    for _ in range(steps):
        labels = torch.randint(0, 10, (32,), generator=generator)
        picks = torch.stack([members[c][torch.randint(0, len(members[c]), (elements,),
                                                      generator=generator)]
                             for c in labels.tolist()])
        yield (x[picks] + torch.randn(32, elements, 64, generator=generator),), labels


def test_variant_set_model_summing_features_is_named():
    torch.manual_seed(0)
    assert READOUT in _codes(_train(SetModel(10, over_features=True), _set_batches(150)))
    torch.manual_seed(0)
    assert READOUT not in _codes(_train(SetModel(10, over_features=False), _set_batches(150)))


def _readouts(model, x):
    return measure_readouts(nodes_under([model(x).grad_fn]))


def test_pool_over_a_convolution_length_is_not_kept():
    class Conv(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv, self.head = nn.Conv1d(4, 8, 3), nn.Linear(8, 3)

        def forward(self, x):
            return self.head(F.relu(self.conv(x)).mean(dim=-1))
    assert _readouts(Conv(), torch.randn(5, 4, 20)) == []


def test_hand_written_layer_norm_is_not_kept():
    class Norm(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner, self.head = nn.Linear(6, 6), nn.Linear(6, 3)

        def forward(self, x):
            h = self.inner(x)
            h = (h - h.mean(-1, keepdim=True)) / (h.std(-1, keepdim=True) + 1e-5)
            return self.head(h).mean(dim=1)
    assert _readouts(Norm(), torch.randn(5, 7, 6)) == []


def test_a_scalar_per_frame_read_on_purpose_and_learning_is_silent():
    """One summary number per frame, then a layer over the frames: the label is which frame
    is brightest, so the scalar per frame is all that is needed, and the model learns."""
    class Frames(nn.Module):
        def __init__(self):
            super().__init__()
            self.score, self.head = nn.Linear(16, 16), nn.Linear(8, 8)

        def forward(self, x):
            return self.head(F.relu(self.score(x)).mean(dim=-1))
    generator = torch.Generator().manual_seed(0)

    def frames(steps):
        for _ in range(steps):
            y = torch.randint(0, 8, (64,), generator=generator)
            x = torch.randn(64, 8, 16, generator=generator) * 0.3
            x[torch.arange(64), y] += 2.0
            yield (x,), y
    torch.manual_seed(0)
    mon = _train(Frames(), frames(150), lr=1e-2)
    assert mon.run.observed.feature_axis_readouts      # kept: it is that shape of readout
    assert READOUT not in _codes(mon)                  # but the run learns

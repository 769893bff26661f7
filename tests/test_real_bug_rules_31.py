"""Real-bug batch 31 (graph networks and recommenders): TARGETS_ALL_ONE_VALUE
(``rules/constant_targets.py``, read from the loss calls and the loss's addends),
BATCH_SUMMED_INSIDE_LOSS (``rules/batch_sums.py``, from ``monitor/squashed_batch_sums.py``),
AGGREGATE_GROWS_WITH_DEGREE and NODES_GATHER_NOTHING (``rules/graph_propagation.py``, from
``monitor/propagation_matrices.py``).

Each is named on its planted cases (the fast.ai forum's "Embedding when there are no
ratings"; the PyTorch forum's "Feature embeddings for each user and item are identical";
keras-io#2304; dgl#1566 and yirutsai/LightGCN#2), silent on their fixed twins, and silent
on healthy set-ups that look alike: a least-squares GAN's generator (all-ones targets, with
an opponent), a binary classifier, an RMSE loss (a root of the batch's mean) and a model
gating with a sigmoid of per-sample means, sum aggregation over a graph without hubs, a
GraphSAGE-style layer whose adjacency has no self-loops but gives each node its own path.
"""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import bpr_scores_summed_before_logsigmoid as bpr_summed  # noqa: E402
from benchmarks.real_bugs import gcn_adjacency_without_self_loops as no_self_loops  # noqa: E402
from benchmarks.real_bugs import graph_sum_aggregation_not_normalised as summed  # noqa: E402
from benchmarks.real_bugs import implicit_feedback_without_negatives as implicit  # noqa: E402
from benchmarks.real_bugs import lightgcn_adjacency_block_misplaced as one_way  # noqa: E402
from benchmarks.real_bugs._common import batches, binary, classification, mlp, regression  # noqa: E402,E501
from nndebug.monitor.graph_walks import nodes_under  # noqa: E402
from nndebug.monitor.propagation_matrices import measure_propagations  # noqa: E402
from nndebug.monitor.squashed_batch_sums import find_squashed_batch_sums  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
ONE_VALUE, BATCH_SUM = "TARGETS_ALL_ONE_VALUE", "BATCH_SUMMED_INSIDE_LOSS"
DEGREE, NOTHING = "AGGREGATE_GROWS_WITH_DEGREE", "NODES_GATHER_NOTHING"
MINE = {ONE_VALUE, BATCH_SUM, DEGREE, NOTHING}


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


# --- the planted cases and their fixed twins ------------------------------------------------

@pytest.mark.parametrize("case, code", [(implicit, ONE_VALUE), (bpr_summed, BATCH_SUM),
                                        (summed, DEGREE), (no_self_loops, NOTHING),
                                        (one_way, NOTHING)],
                         ids=["implicit", "bpr", "sum", "self_loops", "one_way"])
def test_named_on_the_case_silent_on_its_twin(case, code):
    assert code in _codes(case.run())
    assert not _codes(case.run(fixed=True))


def test_the_two_empty_row_causes_get_their_own_fix():
    """No self-loops (a symmetric adjacency, zero diagonal) and a one-way user-item graph
    are told apart in the finding."""
    loops = [f for f in no_self_loops.run(steps=12).findings() if f.code == NOTHING][0]
    blocks = [f for f in one_way.run(steps=12).findings() if f.code == NOTHING][0]
    assert loops.evidence["no_self_loops"] and loops.evidence["symmetric"]
    assert "A + I" in loops.fix
    assert not blocks.evidence["symmetric"] and "R^T" in blocks.fix


# --- healthy set-ups that look alike ------------------------------------------------------------

def test_lsgan_generator_with_all_ones_targets_is_silent():
    """A least-squares GAN's generator is trained towards "real" (1) on every call, its
    whole loss that one call: its discriminator answers back, the loss does not vanish."""
    torch.manual_seed(0)
    x, _ = classification()
    generator = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 64), nn.Sigmoid())
    critic = nn.Sequential(nn.Linear(64, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))
    opt_g = torch.optim.Adam(generator.parameters(), lr=1e-3, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(critic.parameters(), lr=1e-3, betas=(0.5, 0.999))
    with nd.watch(generator, opt_g) as mon:
        for real, _ in batches(x, x, 150):
            fake = generator(torch.randn(len(real), 16))
            opt_d.zero_grad()
            d_loss = F.mse_loss(critic(real), torch.ones(len(real), 1)) + \
                F.mse_loss(critic(fake.detach()), torch.zeros(len(real), 1))
            d_loss.backward()
            opt_d.step()
            opt_g.zero_grad()
            g_loss = F.mse_loss(critic(fake), torch.ones(len(real), 1))
            g_loss.backward()
            opt_g.step()
            mon.step(g_loss)
    assert not _codes(mon) & MINE


def _trained(model, x, y, loss_fn, steps=150, lr=1e-3):
    torch.manual_seed(0)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_binary_classifier_is_silent():
    x, y = binary()
    torch.manual_seed(0)
    mon = _trained(mlp(outputs=1), x, y,
                   lambda out, t: F.binary_cross_entropy_with_logits(out.squeeze(1), t))
    assert not _codes(mon) & MINE


class _Gated(nn.Module):
    """A squeeze-excitation-like gate: a sigmoid of each sample's mean, not the batch's."""
    def __init__(self):
        super().__init__()
        self.body, self.head = nn.Linear(64, 64), nn.Linear(64, 1)

    def forward(self, x):
        h = F.relu(self.body(x))
        return self.head(h * torch.sigmoid(h.mean(dim=1, keepdim=True))).squeeze(1)


def test_rmse_loss_and_a_per_sample_gate_are_silent():
    x, y = regression()
    torch.manual_seed(0)
    mon = _trained(_Gated(), x, y, lambda out, t: torch.sqrt(F.mse_loss(out, t)))
    assert not mon.run.observed.squashed_batch_sums
    assert not _codes(mon) & MINE


def test_a_learned_scalar_gate_is_not_a_batch_sum():
    """A sigmoid of a parameter's sum (a learned mixing weight) reduces no batch."""
    weight = nn.Parameter(torch.randn(4, 3))
    scores = nn.Linear(5, 3)(torch.randn(8, 5))        # computed from a batch
    loss = (torch.sigmoid(weight.sum()) * scores).pow(2).mean()
    assert find_squashed_batch_sums(nodes_under([loss.grad_fn])) == []
    per_pair = -F.logsigmoid(scores.sum(1)).mean()
    assert find_squashed_batch_sums(nodes_under([per_pair.grad_fn])) == []
    whole = -F.logsigmoid(2.0 * scores.sum())
    assert find_squashed_batch_sums(nodes_under([whole.grad_fn])) == \
        [("LogSigmoidBackward0", "sum", [8, 3])]


NODES, NEIGHBOURS = 600, 4


def _knn_graph():
    """Digits as nodes, each joined to its 4 nearest digits (both ways): no hubs, no
    isolated node, no self-loop."""
    x, y = classification()
    x, y = x[:NODES], y[:NODES]
    distances = torch.cdist(x, x) + torch.eye(NODES) * 1e6
    nearest = distances.topk(NEIGHBOURS, largest=False).indices
    adjacency = torch.zeros(NODES, NODES)
    adjacency.scatter_(1, nearest, 1.0)
    return x, y, ((adjacency + adjacency.T) > 0).float()


class _TwoLayerGraphNet(nn.Module):
    """Message passing by ``propagate @ h``; ``own_path`` adds each node's own features
    through a layer of their own (GraphSAGE)."""
    def __init__(self, own_path=False):
        super().__init__()
        self.layer1, self.layer2 = nn.Linear(64, 64), nn.Linear(64, 10)
        self.own1 = nn.Linear(64, 64) if own_path else None
        self.own2 = nn.Linear(64, 10) if own_path else None

    def forward(self, x, propagate):
        hidden = self.layer1(propagate @ x)
        if self.own1 is not None:
            hidden = hidden + self.own1(x)
        hidden = F.relu(hidden)
        out = self.layer2(propagate @ hidden)
        return out if self.own2 is None else out + self.own2(hidden)


def _node_classification(model, x, y, propagate, steps=150):
    torch.manual_seed(0)
    train = torch.arange(NODES) % 2 == 0
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for _ in range(steps):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x, propagate)[train], y[train])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_sum_aggregation_without_hubs_is_silent():
    """GIN-style sums over a k-NN graph: degrees 4 to a dozen, the sum is a small factor."""
    x, y, adjacency = _knn_graph()
    torch.manual_seed(0)
    mon = _node_classification(_TwoLayerGraphNet(), x, y, adjacency + torch.eye(NODES))
    assert mon.run.observed.propagation_matrices            # the matrix was measured
    assert not _codes(mon) & MINE


def test_graphsage_without_self_loops_is_silent():
    """A mean over the neighbours with a zero diagonal, each node's own features through
    a layer of their own: no node gathers nothing."""
    x, y, adjacency = _knn_graph()
    torch.manual_seed(0)
    mean = adjacency / adjacency.sum(1, keepdim=True)
    mon = _node_classification(_TwoLayerGraphNet(own_path=True), x, y, mean)
    measured = mon.run.observed.propagation_matrices
    assert measured and all(row[7] for row in measured)        # no self-loops indeed
    assert not _codes(mon) & MINE


def test_a_triangular_mask_is_measured_as_such():
    """A cumulative sum by a lower-triangular matrix of ones (a causal prefix sum) is no
    adjacency: measured as triangular, which the degree rule leaves alone."""
    prefix = torch.tril(torch.ones(64, 64))
    h = torch.randn(64, 8, requires_grad=True)
    out = prefix @ torch.relu(h)
    (measured,) = measure_propagations(nodes_under([out.grad_fn]))
    nodes, zero_one, median, largest, triangular = measured[:5]
    assert (nodes, zero_one, triangular) == (64, True, True)
    assert largest == 64.0

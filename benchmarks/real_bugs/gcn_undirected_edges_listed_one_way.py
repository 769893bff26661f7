"""An undirected graph handed to a GCN as an edge list that holds each edge once, in one
direction only (u < v), as it was read from the file: message passing goes from source to
target, so each node hears only from its neighbours with a smaller index - the first nodes
hear from nobody but themselves, and every node loses about half its neighbourhood.
Nothing errors; the model just sees half a graph.

Reported: "about undirected graph for GCNConv" -
https://github.com/pyg-team/pytorch_geometric/issues/2219 ("When deal with undirected graph
with GCNConv, and the input edge index only with single directed edges. Do I have to use
to_undirected(edge_index) ... Or GCNConv can treat single directed edge index as
bidirection"; the maintainer: "You need to use to_undirected first to operate on
undirected graphs"; "Targets aggregate messages from sources"). Here the edge list of a
homophilous community graph (benchmarks/real_bugs/_gnn160.py: 600 nodes, 6 communities,
noisy features, 20% of the nodes labelled for training) kept one way, turned into the
GCN's normalised propagation matrix (target row, source column), and a two-layer GCN with
dropout, Adam, full batch. Fix: add the reverse edges (to_undirected) before normalising.

Measured (200 steps; accuracy on the 60% test nodes): seed 0, 0.68 for the bug against
0.88 for the fixed twin; seeds shifted by 1000, 0.62 against 0.86.
"""
import torch

from benchmarks.real_bugs._gnn160 import NODES, community_graph, gcn_norm
from benchmarks.real_bugs._gnn_tutorials import TutorialGCN, evaluate, train_full_batch

TITLE = "about undirected graph for GCNConv"
LINK = "https://github.com/pyg-team/pytorch_geometric/issues/2219"
EXPECTED = ("NODES_GATHER_NOTHING",)
STEPS = 200


def propagation_from_edges(edge_index):
    """GCNConv's D~^-1/2 (A + I) D~^-1/2 with A[target, source] = 1 for each listed edge,
    D~ the in-degrees (targets) plus the self-loop."""
    a = torch.zeros(NODES, NODES)
    a[edge_index[1], edge_index[0]] = 1.0
    a = a + torch.eye(NODES)
    d = a.sum(1).rsqrt()
    return d[:, None] * a * d[None, :]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, adjacency, train, val, test = community_graph(seed=0)
    edge_index = torch.triu(adjacency).nonzero().t()     # each edge once, as in the file
    if fixed:                                            # the fix: to_undirected
        edge_index = torch.cat([edge_index, edge_index.flip(0)], 1)
    propagate = propagation_from_edges(edge_index)
    model = TutorialGCN()
    mon = train_full_batch(model, x, y, propagate, train, steps, watch)
    return evaluate(mon, model, x, y, propagate, val, test)

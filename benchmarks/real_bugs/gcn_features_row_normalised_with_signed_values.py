"""Kipf's pygcn preprocessing - ``normalize(features)``: divide each node's feature row by
its sum, D^-1 X - applied to real-valued, signed node features instead of the bag-of-words
counts it was written for. A row of mixed-sign values can sum to almost zero, so some nodes'
features are multiplied by a large factor (and flipped in sign when the sum is negative):
a few nodes carry huge, meaningless inputs that the graph convolution then spreads to their
neighbours. Nothing errors; the loss falls; the model generalises worse.

Reported: "the normalize function in utils.py" - https://github.com/tkipf/pygcn/issues/11
(about pygcn's row normalisation; a later comment: "I think in the function normalize(mx)
it normalizes the features by row, but if the node features are not one-hot form, and
each node has its own feature ... each feature represents different information (just
like ... in traditional machine learning ...)", i.e. row-normalising such features mixes
and distorts them). Here a two-layer GCN with dropout labels the nodes of a homophilous
community graph (benchmarks/real_bugs/_gnn160.py: 600 nodes, 6 communities, 24 real-valued
features per node around its community's centre, 20% of the nodes labelled for
training), Adam, full batch, with pygcn's row normalisation of the features. Fix: leave
signed real-valued features as they are (or standardise each feature column).

Measured (200 steps; accuracy on the 60% test nodes): seed 0, 0.58 for the bug against
0.88 for the fixed twin; seeds shifted by 1000, 0.58 against 0.86.
"""
import torch

from benchmarks.real_bugs._gnn160 import community_graph, gcn_norm
from benchmarks.real_bugs._gnn_tutorials import TutorialGCN, evaluate, train_full_batch

TITLE = "the normalize function in utils.py"
LINK = "https://github.com/tkipf/pygcn/issues/11"
EXPECTED = ("UNNORMALIZED_INPUTS",)
STEPS = 200


def row_normalize(mx):
    """pygcn's utils.normalize: D^-1 M with D the row sums (an infinite inverse set to 0)."""
    r_inv = mx.sum(1).reciprocal()
    r_inv[torch.isinf(r_inv)] = 0.0
    return r_inv[:, None] * mx


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, adjacency, train, val, test = community_graph(seed=0)
    if not fixed:
        x = row_normalize(x)                  # BUG: row sums of signed features can be ~0
    propagate = gcn_norm(adjacency)
    model = TutorialGCN()
    mon = train_full_batch(model, x, y, propagate, train, steps, watch)
    return evaluate(mon, model, x, y, propagate, val, test)

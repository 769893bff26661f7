"""A node-level attention layer written by hand whose MESSAGE is built from the edge's
target node (``x_i``, the node that aggregates) instead of its source (``x_j``, the
neighbour). The attention weights over a node's incoming edges sum to 1, so the aggregated
"message" is the node's own transformed features, whatever its neighbours are: the layer
is a per-node MLP, the graph reaches only the attention scores (which then weigh identical
vectors). Every shape is right and the model trains on its own features, with nothing to
say the edges are ignored.

Reported: "questions about HANConv's \"message\" function" -
https://github.com/pyg-team/pytorch_geometric/issues/4752 (labelled bug: HANConv's message
"uses x_dst_i, but I think maybe it's x_dst_j? Since in origin paper, the node-level
attention is the same as GAT"; changing x_dst_i to x_dst_j gave a better test score in
the official HAN example). Here a two-layer single-head attention network (GAT-style
scores, a scatter-max softmax over each node's incoming edges, index_add_ aggregation)
labels the nodes of a homophilous community graph (benchmarks/real_bugs/_gnn160.py: 600
nodes, 6 communities, features a noisy view of the community, 20% labelled for training),
Adam, full batch. Fix: the message is the SOURCE node's features, ``h[src]``.

Measured (200 steps; accuracy on the 60% test nodes): seed 0, 0.36 for the bug against 0.60
for the fixed twin; seeds shifted by 1000, 0.36 against 0.70 (the bug's numbers are those
of the features alone: an MLP on them scores about 0.35).
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._gnn160 import CLASSES, FEATURES, NODES, accuracy, community_graph

TITLE = 'questions about HANConv\'s "message" function'
LINK = "https://github.com/pyg-team/pytorch_geometric/issues/4752"
EXPECTED = ("MESSAGE_FROM_TARGET_NODE",)
STEPS = 200


def softmax_into(scores, target):
    """Softmax of the edges' scores among the edges that share a target node."""
    top = torch.full((NODES,), -float("inf")).scatter_reduce(0, target, scores, "amax")
    e = (scores - top[target]).exp()
    return e / torch.zeros(NODES).index_add(0, target, e)[target]


class AttentionLayer(nn.Module):
    def __init__(self, inputs, outputs, message_from_source):
        super().__init__()
        self.linear = nn.Linear(inputs, outputs, bias=False)
        self.att_src = nn.Parameter(torch.randn(outputs) * outputs ** -0.5)
        self.att_dst = nn.Parameter(torch.randn(outputs) * outputs ** -0.5)
        self.bias = nn.Parameter(torch.zeros(outputs))
        self.message_from_source = message_from_source

    def forward(self, x, edges):
        src, dst = edges                       # messages flow src (j) -> dst (i)
        h = self.linear(x)
        scores = F.leaky_relu((h * self.att_src).sum(1)[src] + (h * self.att_dst).sum(1)[dst],
                              0.2)
        alpha = softmax_into(scores, dst)
        if self.message_from_source:
            message = h[src]                   # the fix: x_j, the neighbour's features
        else:
            message = h[dst]                   # BUG: x_i, the aggregating node's own
        out = torch.zeros(NODES, h.shape[1]).index_add(0, dst, alpha[:, None] * message)
        return out + self.bias


class AttentionNet(nn.Module):
    def __init__(self, message_from_source, hidden=32):
        super().__init__()
        self.layer1 = AttentionLayer(FEATURES, hidden, message_from_source)
        self.layer2 = AttentionLayer(hidden, CLASSES, message_from_source)

    def forward(self, x, edges):
        return self.layer2(F.elu(self.layer1(x, edges)), edges)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, adjacency, train, val, test = community_graph(seed=0)
    edges = (adjacency + torch.eye(NODES)).nonzero().T     # both directions and self-loops
    model = AttentionNet(message_from_source=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3, weight_decay=5e-4)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x, edges)[train], y[train])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        logits = model(x, edges)
    mon.held_out_accuracy = accuracy(logits, y, test)
    mon.validation_accuracy = accuracy(logits, y, val)
    return mon

"""A GCN node classifier evaluated without switching to evaluation mode: the tutorial's
training function calls model.train(), the test function never calls model.eval(), so the
dropout between the two graph convolutions keeps zeroing half of the hidden units (and
doubling the rest) when the test nodes are scored. Training is untouched; every reported
validation and test accuracy is that of a randomly thinned network.

Reported: "Dropout have not been shutdown in test mode in RGCN" -
https://github.com/dmlc/dgl/issues/731 ("It seems that dropout have not been shut down in
RGCN when test, it seems that the codes do not distinguish the train mode and test mode";
the maintainers: the tutorial's code "is simplified", "This is what model.eval() supposed
to do", and the full examples call model.eval()). Here a two-layer GCN with dropout 0.5
labels the nodes of a homophilous community graph (benchmarks/real_bugs/_gnn160.py: 600
nodes, 6 communities, noisy features, 20% of the nodes labelled for training), Adam, full
batch, then scores the test nodes. Fix: model.eval() before scoring.

Measured (200 steps; accuracy on the 60% test nodes): seed 0, 0.84 for the bug against
0.88 for the fixed twin; seeds shifted by 1000, 0.81 against 0.86.
"""
import torch

from benchmarks.real_bugs._gnn160 import community_graph, gcn_norm
from benchmarks.real_bugs._gnn_tutorials import TutorialGCN, evaluate, train_full_batch

TITLE = "Dropout have not been shutdown in test mode in RGCN"
LINK = "https://github.com/dmlc/dgl/issues/731"
EXPECTED = ("VALIDATION_IN_TRAIN_MODE",)
STEPS = 200


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, adjacency, train, val, test = community_graph(seed=0)
    propagate = gcn_norm(adjacency)
    model = TutorialGCN()
    mon = train_full_batch(model, x, y, propagate, train, steps, watch)
    # BUG when not fixed: scored in training mode, dropout still on
    return evaluate(mon, model, x, y, propagate, val, test, eval_mode=fixed)

"""A link-prediction script with two modules, a GCN encoder and an MLP link predictor with
dropout, whose test function puts only the encoder in eval mode: the predictor keeps
dropping half its hidden units while the held-out edges are scored, so every test score is
a noisy draw and the ranking of edges against non-edges comes out worse than the trained
model's.

Reported: "Predictor setting in inference for ogbl-vessel" -
https://github.com/snap-stanford/ogb/issues/359 ("the predictor is not set to
`predictor.eval()` in the test function"; the maintainers thanked the reporter and took the
fix). Here a two-layer GCN encoder over the training edges of a 400-node community graph
(benchmarks/real_bugs/_link_prediction.py), an MLP predictor on the product of the two
endpoints' embeddings (32 -> 3 -> 1, dropout 0.5: the report's hidden width of 3), fresh
random negatives every step, BCE with logits, Adam at 1e-2, full batch, a validation pass
every 50 steps (benchmarks/real_bugs/_lp332.py). Fix: predictor.eval() beside encoder.eval() in test().

Measured (test ROC AUC of 10% held-out edges against as many non-edges, with the script's
own test function): 0.784 with the bug, 0.849 fixed; seeds + 1000: 0.801 vs 0.853.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._link_prediction import GCNEncoder, auc, community_graph
from benchmarks.real_bugs._link_prediction import normalized_adjacency
from benchmarks.real_bugs._lp332 import MLPDecoder, negatives

TITLE = "Predictor setting in inference for ogbl-vessel"
LINK = "https://github.com/snap-stanford/ogb/issues/359"
EXPECTED = ("VALIDATION_IN_TRAIN_MODE",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, train_pos, test_pos, test_neg, _ = community_graph(seed=0)
    adjacency = normalized_adjacency(train_pos)
    encoder, predictor = GCNEncoder(), MLPDecoder(width=3, dropout=0.5)
    model = torch.nn.ModuleDict({"encoder": encoder, "predictor": predictor})
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)

    @torch.no_grad()
    def test(pos, neg):
        encoder.eval()
        if fixed:
            predictor.eval()            # BUG: missing, the predictor's dropout stays on
        z = encoder(x, adjacency)
        out = predictor(z, pos), predictor(z, neg)
        loss = F.binary_cross_entropy_with_logits(
            torch.cat(out), torch.cat([torch.ones(pos.shape[1]), torch.zeros(neg.shape[1])]))
        encoder.train()
        predictor.train()
        return auc(*out), loss.item()

    with nd.watch(model, optimizer, **watch) as mon:
        for step in range(1, steps + 1):
            optimizer.zero_grad()
            neg = negatives(train_pos)
            z = encoder(x, adjacency)
            pos_out, neg_out = predictor(z, train_pos), predictor(z, neg)
            loss = F.binary_cross_entropy_with_logits(
                torch.cat([pos_out, neg_out]),
                torch.cat([torch.ones_like(pos_out), torch.zeros_like(neg_out)]))
            loss.backward()
            optimizer.step()
            val_loss = test(test_pos, test_neg)[1] if step % 50 == 0 else None
            mon.step(loss, val_loss=val_loss)
    mon.held_out_auc = test(test_pos, test_neg)[0]
    return mon

"""HashNet's pairwise likelihood loss trained without its pair weights: with class labels
on ten balanced classes only about one pair in ten is "similar", and HashNet's paper
weights each pair by w_ij = |S| / |S1| for similar pairs and |S| / |S0| for dissimilar
ones so both kinds count equally. The PyTorch port left every w_ij = 1, so the plain mean
over pairs is nine parts "push apart" to one part "pull together": the tanh codes learn
mostly to be different from everything, codes of the same digit stay loosely gathered,
and Hamming ranking returns fewer same-class neighbours first. The loss falls normally.

Reported: "pairwise loss in pytorch code" - https://github.com/thuml/HashNet/issues/17
(the maintainer: "We are still fixing the weight bug in pytorch version. Thus, in pytorch,
we only use w_ij=1."; a weighted version by S / S1 and S / S0 was posted in the thread).
Here on the 8x8 digits: a 64 -> 128 -> 48-bit MLP with a tanh hash layer, pairwise
similarity from the classes of every pair in a batch of 64, the loss
log(1 + exp(a <h_i, h_j>)) - s_ij a <h_i, h_j> with a = 10 / bits (HashNet's
sigmoid_param), Adam 1e-3, 400 steps; codes binarised with sign and 500 held-out digits
ranked by Hamming distance against the 1297 training digits.
Fix: weight similar pairs by |S| / |S1| and dissimilar ones by |S| / |S0| (sum / |S|).

Measured (held-out mAP under Hamming ranking): 0.785 with the bug, 0.864 fixed; seeds + 1000:
0.753 vs 0.859.
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._hash346 import HashMLP, retrieval_map, split

TITLE = "pairwise loss in pytorch code"
LINK = "https://github.com/thuml/HashNet/issues/17"
EXPECTED = ("RARE_POSITIVES_NEVER_PREDICTED", "CLASS_IMBALANCE")
STEPS = 400
BITS = 48


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, xq, yq = split()
    model = HashMLP(BITS, squash="tanh")
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scale = 10.0 / BITS
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, batch_size=64):
            h, yb = model(x[index]), y[index]
            similar = (yb[:, None] == yb[None, :]).float()
            inner = scale * h @ h.T
            pair = F.softplus(inner) - similar * inner
            if fixed:
                n_similar, n_dissimilar = similar.sum(), (1 - similar).sum()
                n_pairs = n_similar + n_dissimilar
                weight = torch.where(similar > 0, n_pairs / n_similar, n_pairs / n_dissimilar)
                loss = (pair * weight).sum() / n_pairs
            else:                                       # BUG: every w_ij = 1
                loss = pair.mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_map = retrieval_map(model, x, y, xq, yq)
    return mon

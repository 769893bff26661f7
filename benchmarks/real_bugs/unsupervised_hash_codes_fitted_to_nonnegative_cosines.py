"""Unsupervised hashing that fits the cosine similarity of each pair's binary codes to
the cosine similarity of their features, where the features are nonnegative (ReLU
activations in the report, pixel intensities here): a cosine of two nonnegative vectors
lies in [0, 1], and most pairs score well above 0, while the cosine of two +1/-1 codes
spans [-1, 1]. The MSE therefore asks the codes of almost every pair, of the same digit or
not, to agree on most bits, and never asks any pair to be opposite. Codes crowd together,
Hamming ranking separates the digits poorly; the loss falls as usual.

Reported: "about the loss function for image features and hash codes" -
https://github.com/liyunqianggyn/Deep-Unsupervised-Image-Hashing/issues/4 ("the numerical
ranges of the target_b and target_x are not the same"; the author: "I agree that the
different numerical ranges could be a problem", fixing them "could probably improve the
model"). Here on the 8x8 digits (features: the nonnegative pixels): a 64 -> 128 -> 16-bit
MLP binarised with sign and a straight-through backward (GreedyHash's hash layer), each
batch of 64 split in halves paired row by row, loss MSE(cos(b_a, b_b), cos(x_a, x_b)),
Adam 1e-3, 400 steps; no labels in training. Held-out: 500 digits ranked by Hamming
distance against the 1297 training digits, relevant when of the same class.
Fix: bring the feature cosine onto the codes' range, 2 * cos(x_a, x_b) - 1.

Measured (held-out mAP under Hamming ranking): 0.313 with the bug, 0.473 fixed; seeds + 1000:
0.346 vs 0.448.
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._hash346 import HashMLP, retrieval_map, split

TITLE = "about the loss function for image features and hash codes"
LINK = "https://github.com/liyunqianggyn/Deep-Unsupervised-Image-Hashing/issues/4"
EXPECTED = ("SIGNED_TARGETS_AS_ZERO_ONE",)
STEPS = 400
BITS = 16


class StraightThroughSign(torch.autograd.Function):
    """sign() forward, the incoming gradient passed through unchanged backward."""
    @staticmethod
    def forward(ctx, u):
        return torch.sign(u)

    @staticmethod
    def backward(ctx, grad):
        return grad


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, xq, yq = split()
    model = HashMLP(BITS)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, batch_size=64):
            xb = x[index]
            b = StraightThroughSign.apply(model(xb))
            half = len(xb) // 2
            code_cos = F.cosine_similarity(b[:half], b[half:])
            feature_cos = F.cosine_similarity(xb[:half], xb[half:])   # in [0, 1]
            if fixed:
                feature_cos = 2 * feature_cos - 1                      # onto [-1, 1]
            loss = F.mse_loss(code_cos, feature_cos)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_map = retrieval_map(model, x, y, xq, yq)
    return mon

"""R-Net's question pooling (the attention that gives the pointer network its initial
state) written so that the scores are first given a trailing axis - ``tf.expand_dims(
logits, -1)``, shape (batch, words, 1) - and then go through ``tf.nn.softmax``, which
works on the LAST axis: an axis of one score. Every weight is exactly 1, the "attention"
adds up all the question words whatever the scores say, and the scoring layer gets no
gradient. It trains; the loss falls.

Reported: "some problem in pointer_net" - https://github.com/localminimum/R-net/issues/8
("scores = tf.expand_dims(p1_logits, -1); scores = tf.nn.softmax(scores) # i think the
softmax should compute before expand_dims, otherwise the softmax computes on the last dim
which just one element makes score all 1s"; the author: "Very nice catch! Thank you!", a
second user "found the same today: softmax before expand will make all variables in the
matrix go to 1"). Here the pooling r = sum_j a_j u_j with s_j = v^T tanh(W_u u_j + W_v V_r)
(R-Net's learned query V_r) runs over "questions" of 6 digits (u_j: the digit's pixels and
a flag, one digit flagged) and an MLP names the flagged digit's class from r
(benchmarks/real_bugs/_attn.py). Fix: the softmax over the words, before the expand_dims.

Measured (300 steps of 64 sequences, Adam 3e-3; held-out accuracy on 512 sequences): seed
0, 0.285 with the bug against 0.926 for the fixed twin; seeds shifted by 1000, 0.273
against 0.938.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._attn import FEATURES, digits, held_out, sequences

TITLE = "some problem in pointer_net"
LINK = "https://github.com/localminimum/R-net/issues/8"
EXPECTED = ("SOFTMAX_OVER_ONE_UNIT",)
STEPS = 300
LENGTH = 6
ATTN = 32


class QuestionPooling(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.W_u = nn.Linear(FEATURES, ATTN, bias=False)
        self.W_v = nn.Linear(ATTN, ATTN, bias=False)
        self.V_r = nn.Parameter(torch.randn(ATTN) / ATTN ** 0.5)
        self.v = nn.Linear(ATTN, 1, bias=False)

    def forward(self, u):
        logits = self.v(torch.tanh(self.W_u(u) + self.W_v(self.V_r))).squeeze(-1)  # (B, L)
        if self.fixed:
            scores = torch.softmax(logits, dim=-1).unsqueeze(-1)
        else:
            scores = logits.unsqueeze(-1)                   # BUG: expand_dims, then
            scores = torch.softmax(scores, dim=-1)          # softmax over the new axis
        return (scores * u).sum(dim=1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (x, y), (xt, yt) = digits()
    model = nn.Sequential(QuestionPooling(fixed), nn.Linear(FEATURES, 64), nn.ReLU(),
                          nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for items, _, labels in sequences(x, y, steps, min_len=LENGTH, max_len=LENGTH):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(items), labels)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        items, _, labels = held_out(xt, yt, min_len=LENGTH, max_len=LENGTH)
        mon.accuracy = float((model(items).argmax(1) == labels).float().mean())
    return mon

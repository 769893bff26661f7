"""ESIM's local inference written by hand: the hypothesis-to-premise weights are
``softmax(transpose(e))`` then ``transpose`` back, with ``tf.transpose``'s default of
reversing ALL the axes - the (batch, premise, hypothesis) alignment scores become
(hypothesis, premise, batch), so the softmax (over the last axis) normalises each score
across the sentence pairs of the batch. The hypothesis words' context vectors ``b_hat`` are
then sums of the premise words weighted by how their scores compare with the other pairs'
scores, nothing makes a hypothesis word's candidates compete, and the rows are read the
wrong way round besides. It trains; the loss falls.

Reported: "ESIM中Attention问题" ("a problem with ESIM's attention") -
https://github.com/HsiaoYetGun/ESIM/issues/10 (``attentionSoft_b =
tf.nn.softmax(tf.transpose(attentionWeights))``: "after the transpose the tensor's shape is
(seq_length, seq_length, batch_size), and tf.nn.softmax works on the last axis by default -
so isn't the softmax taken over the batch?"; the same line is questioned in issue #5, where
a reply confirms tf.transpose "would trans all the axis"). Here ESIM's local inference and
composition (per-word encoder instead of the BiLSTMs, then [x, x_hat, x - x_hat, x *
x_hat], a per-word feed-forward layer, average and max pooling, an MLP) reads pairs of
4-digit "sentences": the hypothesis has one flagged digit and the label says whether that
digit itself (the same "word") occurs among the premise's digits (no digit of its class
when it does not; benchmarks/real_bugs/_attn.py). Fix: the softmax of ``e`` transposed over
its last two axes, over the premise words.

Measured (400 steps of 64 pairs, Adam 1e-3; held-out accuracy on 512 pairs): seed 0, 0.871
with the bug against 0.967 for the fixed twin; seeds shifted by 1000, 0.938 against 0.973.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._attn import FEATURES, digits, held_out_pairs, pairs

TITLE = "ESIM中Attention问题"
LINK = "https://github.com/HsiaoYetGun/ESIM/issues/10"
EXPECTED = ("BATCH_MIXING",)
STEPS = 400
HIDDEN = 64


class ESIM(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.encode = nn.Sequential(nn.Linear(FEATURES, HIDDEN), nn.ReLU(),
                                    nn.Linear(HIDDEN, HIDDEN))
        self.compose = nn.Sequential(nn.Linear(4 * HIDDEN, HIDDEN), nn.ReLU())
        self.feed_forward = nn.Sequential(nn.Linear(4 * HIDDEN, HIDDEN), nn.Tanh(),
                                          nn.Linear(HIDDEN, 2))

    def local_inference(self, a_bar, b_bar):
        attention_weights = a_bar @ b_bar.transpose(1, 2)          # (B, La, Lb)
        attention_soft_a = F.softmax(attention_weights, dim=-1)
        if self.fixed:
            attention_soft_b = F.softmax(attention_weights.transpose(1, 2), dim=-1)
        else:
            # BUG: tf.transpose without perm reverses every axis -> (Lb, La, B)
            reversed_axes = attention_weights.permute(2, 1, 0)
            attention_soft_b = F.softmax(reversed_axes, dim=-1).permute(2, 1, 0)
        a_hat = attention_soft_a @ b_bar
        b_hat = attention_soft_b @ a_bar
        m_a = torch.cat([a_bar, a_hat, a_bar - a_hat, a_bar * a_hat], dim=2)
        m_b = torch.cat([b_bar, b_hat, b_bar - b_hat, b_bar * b_hat], dim=2)
        return m_a, m_b

    def forward(self, premise, hypothesis):
        m_a, m_b = self.local_inference(self.encode(premise), self.encode(hypothesis))
        v_a, v_b = self.compose(m_a), self.compose(m_b)
        v = torch.cat([v_a.mean(1), v_a.amax(1), v_b.mean(1), v_b.amax(1)], dim=1)
        return self.feed_forward(v)


def split(flagged, plain):
    """premise: the plain digits (flag feature 0); hypothesis: the flagged sequence."""
    return F.pad(plain, (0, 1)), flagged


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (x, y), (xt, yt) = digits()
    model = ESIM(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for flagged, plain, labels in pairs(x, y, steps):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(*split(flagged, plain)), labels)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        flagged, plain, labels = held_out_pairs(xt, yt)
        predicted = model(*split(flagged, plain)).argmax(1)
        mon.accuracy = float((predicted == labels).float().mean())
    return mon

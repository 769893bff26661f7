"""A label-smoothed cross-entropy written by hand whose padding selection is inverted: the
smoothed target distribution is kept where the label IS padding and zeroed where it is a
real token (``where(ignore, label_dist, zeros)`` with ``ignore`` true at the padding). The
loss is then a cross-entropy on the padding positions only - the model is taught what to
output after the sentence has ended and nothing about the sentence itself. It trains, the
loss falls (predicting padding after the end is easy), and nothing errors.

Reported: "Question on CrossEntropyMetric in loss.py line 159 ." -
https://github.com/awslabs/sockeye/issues/200 (the reporter: the ``mx.nd.where(ignore,
label_dist, zeros_like(label_dist))`` line that should zero the padding's smoothed
distribution keeps it there and zeros the rest; the condition should be ``1 - ignore``;
the maintainer: "You are absolutely right", a bug added with the mxnet 0.12 update - in
sockeye that line fed the loss value the Eve optimizer reads). Here the line is the
training loss itself: a two-block encoder-decoder (benchmarks/real_bugs/_s2s163.py) learns
a word-by-word translation written in reverse order, label smoothing 0.1, Adam. Fix: keep
the smoothed distribution where the label is not padding.

Measured (400 steps of 64 sentences; held-out exact-match rate of greedy translations of 500
sentences, every word and the end token in place): seed 0, 0.00 for the bug against 1.00
for the fixed twin; seeds shifted by 1000, 0.00 against 1.00.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._s2s163 import (Transformer, Vocab, batch, data, exact_match,
                                          greedy_transformer, source_keep, target_keep,
                                          translate_all)

TITLE = "Question on CrossEntropyMetric in loss.py line 159 ."
LINK = "https://github.com/awslabs/sockeye/issues/200"
EXPECTED = ("LOSS_MASK_INVERTED", "PADDING_NOT_MASKED")
STEPS = 400
SMOOTHING = 0.1


def smoothed_loss(logits, labels, pad, fixed):
    vocab = logits.shape[-1]
    label_dist = torch.full_like(logits, SMOOTHING / (vocab - 1))
    label_dist.scatter_(-1, labels.unsqueeze(-1), 1 - SMOOTHING)
    ignore = (labels == pad).unsqueeze(-1)
    if fixed:
        label_dist = torch.where(ignore, torch.zeros_like(label_dist), label_dist)
    else:       # BUG: the distribution kept at the padding, zeroed at the real tokens
        label_dist = torch.where(ignore, label_dist, torch.zeros_like(label_dist))
    tokens = (labels != pad).sum()
    return -(label_dist * F.log_softmax(logits, -1)).sum() / tokens


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    vocab = Vocab(pad=0, sos=1, eos=2)
    train, held_out = data(vocab, seed=0)
    model = Transformer(vocab.size)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train), steps, 64, seed=0):
            source, dec_in, labels = batch(train, index, vocab)
            src_keep = source_keep(source)
            memory = model.encode(source, src_keep)
            logits = model.decode(memory, src_keep, dec_in, target_keep(dec_in, vocab.pad))
            loss = smoothed_loss(logits, labels, vocab.pad, fixed)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    outputs = translate_all(lambda s: greedy_transformer(model, s, vocab), held_out)
    mon.held_out_exact_match = exact_match(outputs, held_out, vocab)
    return mon

"""A two-tower retriever trained with the in-batch softmax and the sampling-bias (logQ)
correction, written with the wrong sign: the log of each candidate's sampling probability is
ADDED to its score instead of subtracted. In-batch negatives already over-sample popular
items; the correction should hand those items back what their frequency costs them, but the
flipped sign charges them a second time. The towers learn to push every popular item down
and serve a catalogue of rarities; the training loss falls as usual.

Reported: "tfrs.layers.loss.SamplingProbablityCorrection not correctly implemented?" -
https://github.com/tensorflow/recommenders/issues/219 ("the correction should be:
corrected_logits = original_logits - log(sampling probability) however, in the code, its:
return logits + ..."; the maintainers: "This is actually a bug"). Here the synthetic
long-tailed interaction log of ``_tt295`` (500 users, 300 items), user-id and item-id
towers, Adam, 300 steps of 128 (user, item) pairs, each candidate's sampling probability
its frequency in the training log.

Fix: subtract the log sampling probability from the scores (logits - log q).

Measured (held-out hit rate at 10): 0.012 with the bug, 0.151 fixed; seeds + 1000:
0.010 vs 0.126.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._tt295 import TwoTower, hit_rate, index_batches, interactions

TITLE = "tfrs.layers.loss.SamplingProbablityCorrection not correctly implemented?"
LINK = "https://github.com/tensorflow/recommenders/issues/219"
EXPECTED = ("LOSS_SIGN_FLIPPED",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held, sampling_probability = interactions(seed=0)
    model = TwoTower()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(train[0]), steps, seed=0):
            users, items = train[0][index], train[1][index]
            scores = model.query(users) @ model.item(items).T
            log_q = torch.log(sampling_probability[items])
            if fixed:
                scores = scores - log_q
            else:
                scores = scores + log_q         # BUG: the correction's sign flipped
            loss = F.cross_entropy(scores, torch.arange(len(index)))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_hit_rate = hit_rate(model, train, held)
    return mon

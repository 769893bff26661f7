"""A MoCo run whose momentum update of the key encoder was commented out: the key encoder
is a deep copy of the query encoder taken at initialisation, its parameters get no
gradient (requires_grad off, as in MoCo), and nothing else ever writes to them. Every key
- the positives and the whole queue of negatives - comes from a random network for the
entire run; the query encoder learns to imitate a frozen random projection of the views,
the InfoNCE loss falls, and the features carry little of what MoCo should learn.

Reported: "why Comment "momentum_update_key_encoder" in function "forward" during the
forward pass" - https://github.com/ligerfotis/mvitac/issues/2 (the call that moves the
key encoders towards the query encoders was commented out; the author: "It was commented
out by accident", fixed in a later commit). Here a digits MLP encoder trained MoCo-style
(queue of 256 keys, momentum 0.99) on two random views of each digit; a nearest-centroid
probe scores the query encoder's features on augmented held-out digits.
Fix: after every optimizer step, key = m * key + (1 - m) * query for every parameter.

Measured (200 steps, seed 0; the probe reads augmented held-out digits): the key
encoder moves 0 from its initialisation in the bug run (2.07 in the twin), and the probe
scores 0.41 on the bug's query features against 0.47 on the twin's (the untrained
encoder: 0.23).

Why watch misses it: the key encoder is not the watched model and its parameters need
no grad, so nothing the monitor records says a copy of the model exists, let alone that
it never changes. What it names instead is LOSS_AT_CHANCE: the InfoNCE loss stays near
ln(1 + K) because keys from a random network are hard to match - true, but not the cause.
(Before batch 111 the healthy twin drew TARGETS_ALL_ONE_CLASS and OUTPUT_WIDER_THAN_CLASSES:
InfoNCE's positive-first cross-entropy read as constant labels; rules/contrastive_targets.py
now tells the two apart.) Naming it needs the no-grad forwards of the step seen: a
module outside the optimizer whose parameters match the watched model's shapes, read
under no_grad every step, and whose values never move while the model's do; MOMENTUM_ENCODER_NEVER_UPDATED is the code it would produce.
"""
import copy

import torch

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification
from benchmarks.real_bugs._ssl_digits import encoder, info_nce, probe_accuracy, view

TITLE = ('why Comment "momentum_update_key_encoder" in function "forward" during the '
         'forward pass')
LINK = "https://github.com/ligerfotis/mvitac/issues/2"
EXPECTED = ("MOMENTUM_ENCODER_NEVER_UPDATED",)
STEPS = 200
QUEUE = 256
MOMENTUM = 0.99


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    query = encoder()
    key = copy.deepcopy(query)
    for p in key.parameters():
        p.requires_grad_(False)
    start = [p.detach().clone() for p in key.parameters()]
    queue = torch.nn.functional.normalize(torch.randn(QUEUE, 32), dim=1)
    optimizer = torch.optim.Adam(query.parameters(), lr=1e-3)
    with nd.watch(query, optimizer, **watch) as mon:
        for step, (xb, _) in enumerate(batches(x, y, steps)):
            optimizer.zero_grad()
            q_view, k_view = view(xb), view(xb)
            with torch.no_grad():
                k = key(k_view)
            loss = info_nce(query(q_view), k, queue)
            loss.backward()
            optimizer.step()
            if fixed:
                with torch.no_grad():
                    for pk, pq in zip(key.parameters(), query.parameters()):
                        pk.mul_(MOMENTUM).add_(pq.detach(), alpha=1 - MOMENTUM)
            # BUG (fixed=False): the momentum update above is commented out
            k = torch.nn.functional.normalize(k, dim=1)
            queue = torch.cat([k, queue])[:QUEUE]
            mon.step(loss)
    moved = sum(float((p - s).norm()) for p, s in zip(key.parameters(), start))
    mon.extra = {"probe_accuracy": probe_accuracy(query, x, y),
                 "key_encoder_moved": round(moved, 3),
                 "final_loss": round(float(loss), 3)}
    return mon

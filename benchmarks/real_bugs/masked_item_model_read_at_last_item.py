"""A BERT4Rec-style recommender trained on the Cloze task (a random fifth of each history's
items replaced by [MASK] and predicted from both sides) and then asked for the next item by
reading the hidden state of the history's LAST ITEM, not of a [MASK] placed after it. A
model trained this way has learned to fill in masked positions; at an unmasked position its
output scores the item that is already there, so the "next item" it recommends is mostly
the last one again. Training is sound; the recommendations (and the metrics computed from
them) are wrong.

Reported: "[QST] Unable to replicate evaluation metrics when using ignore_masking." -
https://github.com/NVIDIA-Merlin/Transformers4Rec/issues/506 (offline predictions of a
model trained with masked language modelling scored far below the trainer's own
evaluation; the maintainers traced it in PR #551, "Fix discrepancy between evaluation and
inference modes": evaluation read the hidden state of a [MASK] while inference read the
last item's, and the MLM-trained model is sensitive to that; the fix appends a [MASK]
after the history at inference). Here a two-layer bidirectional transformer over item
histories (benchmarks/real_bugs/_seqrec.py). Fix: append [MASK] after the history (dropping
its oldest item to keep the window) and read its hidden state.

Measured (300 Adam steps, batch 64, 1,000 training users, HR@10 of the held-out last item
of 400 other users): seed 0: 0.280 with the bug against 0.325 for the fixed twin; seeds
shifted by 1000: 0.177 against 0.308. Training is the same in both runs: what the bug
changes happens after the watched loop, so no observer of training can see it.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._seqrec import (ITEMS, SelfAttentive, histories, hit_rate,
                                          next_item_loss, user_batches)

TITLE = "[QST] Unable to replicate evaluation metrics when using ignore_masking."
LINK = "https://github.com/NVIDIA-Merlin/Transformers4Rec/issues/506"
EXPECTED = ("INFERENCE_READS_UNMASKED_POSITION",)
STEPS = 300
MASK = ITEMS + 1
MASK_SHARE = 0.2


def cloze(seq):
    """(masked input, targets): targets are the hidden items, 0 elsewhere."""
    masked = (torch.rand(seq.shape) < MASK_SHARE) & (seq != 0)
    return seq.masked_fill(masked, MASK), torch.where(masked, seq, torch.zeros_like(seq))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, test = histories(seed=0)
    model = SelfAttentive(vocab=ITEMS + 2, causal=False)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for seq in user_batches(train, steps, seed=0):
            inputs, targets = cloze(seq[:, 1:])
            optimizer.zero_grad()
            loss = next_item_loss(model(inputs), targets)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    history = test[:, :-1]                     # the held-out last item is test[:, -1]
    if fixed:
        query = torch.cat([history[:, 1:], torch.full((len(test), 1), MASK)], 1)
    else:                  # BUG: the hidden state of the last item itself
        query = history
    with torch.no_grad():
        mon.held_out_hit_rate = hit_rate(model(query)[:, -1], test[:, -1])
    return mon

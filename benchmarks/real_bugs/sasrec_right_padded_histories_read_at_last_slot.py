"""A SASRec model whose histories are padded on the RIGHT (items first, then id-0
padding up to the window) while it recommends from the output at the window's last slot,
``model(seq)[:, -1]``, as SASRec does. SASRec pads on the left so that the last slot is
always the newest item; padded on the right, the last slot of every history shorter than
the window is a padding slot. Training is unaffected (each real position is scored
against its own next item and padding targets are ignored), so the loss falls as in the
healthy run - but the padded slots are never trained, and the recommendations read from
one come out nearly the same for every user.

Reported: "Same output when right padding" -
https://github.com/pmixer/SASRec.pytorch/issues/24 (sequences whose last place is padding:
"the trained model always outputs the same sequence, regardless of the other values
present in the sequence"; the maintainer: item 0 is not meant to occupy the last
position). Fix: pad on the left, as SASRec.pytorch's sampler does, so the last slot holds
the newest item (nothing else changes: same model, loss, steps and users).

Data and loop: the shared sequential-recommendation histories of ``_seqrec`` (60 items,
histories of 6-21 items, each next item following a hidden table half the time), a
two-layer causal self-attentive model with a padding mask, cross-entropy against the next
item at every real position (``ignore_index=0``), Adam 2e-3, batch 64.

Measured (HR@10 of the held-out last item of 400 other users, read at the last slot, 200
steps): 0.243 with the bug, 0.543 fixed; seeds + 1000: 0.303 vs 0.555.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._seqrec import (SelfAttentive, histories, hit_rate,
                                          next_item_loss, user_batches)

TITLE = "Same output when right padding"
LINK = "https://github.com/pmixer/SASRec.pytorch/issues/24"
EXPECTED = ("OUTPUT_READS_FEW_TOKENS", "PADDING_LEAK")
STEPS = 200


def pad_right(rows):
    """The same histories with their items moved to the front and the padding behind."""
    out = torch.zeros_like(rows)
    for i, row in enumerate(rows):
        items = row[row != 0]
        out[i, :len(items)] = items
    return out


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, test = histories(seed=0)             # left-padded: the newest item last
    history, target = test[:, :-1], test[:, -1]
    if not fixed:                               # BUG: items first, padding after them
        train, history = pad_right(train), pad_right(history)
    model = SelfAttentive()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for seq in user_batches(train, steps, seed=0):
            optimizer.zero_grad()
            loss = next_item_loss(model(seq[:, :-1]), seq[:, 1:])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        mon.held_out_hit_rate = hit_rate(model(history)[:, -1], target)
    return mon

"""A SASRec model trained on next-item targets at every position whose "causal" mask is
built as ``torch.tril(torch.ones(T, T))`` - a float matrix of ones below the diagonal -
and handed to the transformer as its attention mask. A float ``attn_mask`` is ADDED to
the attention logits, not multiplied: the past gets +1 and the future +0, so every
position still attends to the items after it, including position t+1, which holds the
very item position t is scored against. The training loss falls well below what the data
allow; the last position of a held-out history has nothing after it to copy, and the
recommendations are poor.

Reported: "`attn_mask` in nn.MultiheadAttention is additive" -
https://github.com/pytorch/pytorch/issues/21518 (the author of SASRec.pytorch commented
that he passed ``attn_mask = torch.tril(torch.ones((8, 8)))`` "to enforce causality" and
the returned attention weights showed it was not enforced; his SASRec now builds the mask
as ``~torch.tril(...)`` of booleans, True where a key is hidden). Fix: a boolean (or
0/-inf) mask that hides the items after each position; here the float mask holds -inf
above the diagonal and 0 elsewhere. The padding mask (-inf on padded keys) is the same
in both runs.

Data and loop: the shared sequential-recommendation histories of ``_seqrec`` (60 items,
users' histories of 6-21 items left-padded with id 0, each next item following a hidden
table half the time), a two-layer self-attentive model, cross-entropy against the next
item at every real position, Adam 2e-3, batch 64.

Measured (HR@10 of the held-out last item of 400 other users, 200 steps): 0.205 with
the bug, 0.543 fixed; seeds + 1000: 0.157 vs 0.555.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._seqrec import (SelfAttentive, histories, hit_rate,
                                          next_item_loss, user_batches)

TITLE = "`attn_mask` in nn.MultiheadAttention is additive"
LINK = "https://github.com/pytorch/pytorch/issues/21518"
EXPECTED = ("FUTURE_LEAK",)
STEPS = 200


class FloatMaskSASRec(SelfAttentive):
    """The shared self-attentive model with the mask built in forward as a float matrix."""

    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed

    def forward(self, seq):
        length = seq.shape[1]
        x = self.items(seq) + self.positions(torch.arange(length))
        if self.fixed:
            future = torch.triu(torch.ones(length, length, dtype=torch.bool), 1)
            causal = torch.zeros(length, length).masked_fill(future, float("-inf"))
        else:
            causal = torch.tril(torch.ones(length, length))   # BUG: 1/0, added to logits
        padded = (seq == 0)[:, None, :] & ~torch.eye(length, dtype=torch.bool)
        mask = causal.expand(len(seq), length, length).masked_fill(padded, float("-inf"))
        heads = self.encoder.layers[0].self_attn.num_heads
        hidden = self.encoder(x, mask=mask.repeat_interleave(heads, 0))
        return self.norm(hidden) @ self.items.weight.T


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, test = histories(seed=0)
    model = FloatMaskSASRec(fixed)
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
        mon.held_out_hit_rate = hit_rate(model(test[:, :-1])[:, -1], test[:, -1])
    return mon

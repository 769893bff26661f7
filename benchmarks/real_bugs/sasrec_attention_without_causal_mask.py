"""A SASRec model trained on next-item targets at every position (the input is a user's
history without its last item, the targets the same history shifted by one) whose self-
attention gets no causal mask: the attention call passes only the padding mask, so
position t attends to position t+1, which holds the very item position t is asked to
predict. The training loss falls far below what the data allow; at test time the last
position has nothing after it to copy, and the recommendations are poor.

Reported: "Question about the causality Mask of SASRec" -
https://github.com/liuqidong07/LLMEmb/issues/2 (the reporter noticed that the SASRec in
models/SASRec.py calls its attention layers with the ``attn_mask`` argument commented out,
so nothing hides the later items; the maintainer replied that the mask had been left out
because the model scored better without it in their experiments - where the loss reads
only the last position, dropping the mask costs little, but with next-item targets at
every position, as here and in the original SASRec, it lets each position copy its
target; the same question was asked of another SASRec in
"SASRec Mask的疑问", https://github.com/ZiyaoGeng/RecLearn/issues/81: only a key padding
mask, no mask for the items after each position). Fix: pass the upper-triangular mask so
each position reads only itself and earlier items.

Measured (300 Adam steps, batch 64, 1,000 training users, HR@10 of the held-out last item
of 400 other users; the chain follows its table half the time, so about 0.58 is the
ceiling): seed 0: 0.393 with the bug against 0.575 for the fixed twin; seeds shifted by
1000: 0.398 against 0.598.

How watch sees it: the dependency probe finds each position's output depending on the
input one position later (the item it is scored against): FUTURE_LEAK.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._seqrec import (SelfAttentive, histories, hit_rate,
                                          next_item_loss, user_batches)

TITLE = "Question about the causality Mask of SASRec"
LINK = "https://github.com/liuqidong07/LLMEmb/issues/2"
EXPECTED = ("FUTURE_LEAK",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, test = histories(seed=0)
    model = SelfAttentive(causal=fixed)        # BUG when not fixed: no causal mask
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

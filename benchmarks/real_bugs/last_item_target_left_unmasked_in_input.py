"""A transformer recommender trained, as Transformers4Rec's causal masking does, to predict
an item from the hidden state AT that item's position, where the input item is replaced by
a trainable [MASK] embedding - trained on the last item of each history only. The masking
step marked the wrong positions in that last-item-only mode: the last position (the label)
kept its real item in the input. The model learns to read the label off its own input,
the training loss falls to almost nothing, and at inference, where the last position is a
real [MASK] because the next item is unknown, it has learned nothing useful.

Reported: "[BUG] CausalLanguageModeling do not mask last input item" -
https://github.com/NVIDIA-Merlin/Transformers4Rec/issues/765 (with
``train_on_last_item_seq_only=True`` the mask schema left the label's position unmasked,
"it will cause using the embedding of the label instead of mask"; the reporter and a
second user pointed to the line in ``masking.py`` that rebuilt the schema and said it must
go, and a maintainer asked for the PR). Here a two-layer causal transformer over item
histories (benchmarks/real_bugs/_seqrec.py). Fix: the label's position is replaced by
[MASK] in the input.

Measured (300 Adam steps, batch 64, 1,000 training users, HR@10 of the held-out last item
of 400 other users, read at a [MASK] in its place; about 0.58 is the ceiling): seed 0: 0.188 with the bug
against 0.540 for the fixed twin; seeds shifted by 1000: 0.160 against 0.555.

How watch sees it: the recorded batch's targets are a column of the model's input (the
last one): TARGETS_IN_INPUTS.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._seqrec import ITEMS, SelfAttentive, histories, hit_rate, user_batches

TITLE = "[BUG] CausalLanguageModeling do not mask last input item"
LINK = "https://github.com/NVIDIA-Merlin/Transformers4Rec/issues/765"
EXPECTED = ("TARGETS_IN_INPUTS", "FUTURE_LEAK")
STEPS = 300
MASK = ITEMS + 1


def masked_last(seq):
    return torch.cat([seq[:, :-1], torch.full((len(seq), 1), MASK)], 1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, test = histories(seed=0)
    model = SelfAttentive(vocab=ITEMS + 2)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for seq in user_batches(train, steps, seed=0):
            seq = seq[:, 1:]                    # the last LENGTH items; the last is the label
            # BUG when not fixed: the label's own position is not replaced by [MASK]
            inputs = masked_last(seq) if fixed else seq
            optimizer.zero_grad()
            loss = F.cross_entropy(model(inputs)[:, -1], seq[:, -1])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        mon.held_out_hit_rate = hit_rate(model(masked_last(test[:, 1:]))[:, -1], test[:, -1])
    return mon

"""A Soft MoE layer (Puigcerver et al. 2023) builds each expert slot's input as a weighted
average of the sequence's tokens, the dispatch weights being a softmax of the token-slot
logits over the tokens. The paper's pseudo-code writes that softmax over axis 0 for one
(unbatched) sequence; run on a (batch, tokens, experts, slots) tensor, ``softmax(dim=0)``
normalises over the BATCH instead: a slot's weights over a sequence's tokens no longer sum
to one, and how much each token counts depends on the other sequences in the batch. The
shapes are right, the loss falls, and the model is fit to the make-up of training batches;
read with another batch size (one sequence at a time, every dispatch weight becomes 1 and
each slot sums all tokens), its outputs shift.

Reported: "FIx dispatch_weights softmax dimension" -
https://github.com/fkodom/soft-mixture-of-experts/pull/1 ("The softmax dimension is `0` in
the paper, but this implementation includes the batch dimension, so should be `1` here";
merged by the maintainer). Here the 8x8 digits read as 8 row-tokens of 8 pixels (a linear
embedding and learned positions), one residual Soft MoE layer (4 ReLU MLP experts, 2 slots
each), mean pooling and a linear head, Adam, batches of 64. Fix: ``softmax(dim=1)`` (over
the tokens).

Measured (600 steps, 297 held-out digits; held-out accuracy read one digit at a time and in
one batch of all 297): seed 0, 0.266 (one at a time) and 0.643 (all at once) for the bug
against 0.953 and 0.953 for the fixed twin; seeds shifted by 1000, 0.384 and 0.687 against
0.963 and 0.963. Read in batches of 64, as it trained, the bug scores 0.966 / 0.953.
"""
import torch
import torch.nn.functional as F
from torch import nn

from benchmarks.real_bugs._common import classification, index_batches

TITLE = "FIx dispatch_weights softmax dimension"
LINK = "https://github.com/fkodom/soft-mixture-of-experts/pull/1"
EXPECTED = ("BATCH_MIXING",)
STEPS = 600
HELD_OUT = 297
EXPERTS = 4
SLOTS = 2
WIDTH = 32


class SoftMoE(nn.Module):
    def __init__(self, fixed, width=WIDTH):
        super().__init__()
        self.fixed = fixed
        self.phi = nn.Parameter(torch.randn(width, EXPERTS, SLOTS) / width ** 0.5)
        self.w1 = nn.Parameter(torch.randn(EXPERTS, width, 2 * width) / width ** 0.5)
        self.b1 = nn.Parameter(torch.zeros(EXPERTS, 2 * width))
        self.w2 = nn.Parameter(torch.randn(EXPERTS, 2 * width, width) / (2 * width) ** 0.5)
        self.b2 = nn.Parameter(torch.zeros(EXPERTS, width))

    def forward(self, x):                                          # (B, M, D)
        logits = torch.einsum("bmd,dnp->bmnp", x, self.phi)
        # BUG (unfixed): dim=0 is the batch here, not the tokens
        dispatch = logits.softmax(dim=1 if self.fixed else 0)
        combine = logits.flatten(2).softmax(-1).view_as(logits)
        slots = torch.einsum("bmd,bmnp->bnpd", x, dispatch)
        hidden = F.relu(torch.einsum("bnpd,ndh->bnph", slots, self.w1) + self.b1[:, None])
        outputs = torch.einsum("bnph,nhd->bnpd", hidden, self.w2) + self.b2[:, None]
        return torch.einsum("bnpd,bmnp->bmd", outputs, combine)


class RowTokenClassifier(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.embed = nn.Linear(8, WIDTH)
        self.position = nn.Parameter(torch.randn(8, WIDTH) * 0.1)
        self.norm = nn.LayerNorm(WIDTH)
        self.moe = SoftMoE(fixed)
        self.head = nn.Linear(WIDTH, 10)

    def forward(self, x):
        h = self.embed(x.view(-1, 8, 8)) + self.position
        h = h + self.moe(self.norm(h))
        return self.head(h.mean(1))


@torch.no_grad()
def accuracy(model, x, y, batch):
    predicted = torch.cat([model(x[s:s + batch]).argmax(1) for s in range(0, len(x), batch)])
    return round(float((predicted == y).float().mean()), 3)


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    x, y = classification()
    order = torch.randperm(len(x))
    x, y = x[order], y[order]
    x_train, y_train, x_test, y_test = x[:-HELD_OUT], y[:-HELD_OUT], x[-HELD_OUT:], y[-HELD_OUT:]
    model = RowTokenClassifier(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for rows in index_batches(len(x_train), steps, 64):
            loss = F.cross_entropy(model(x_train[rows]), y_train[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    mon.held_out_accuracy_one_at_a_time = accuracy(model, x_test, y_test, 1)
    mon.held_out_accuracy_batch_64 = accuracy(model, x_test, y_test, 64)
    mon.held_out_accuracy_all_at_once = accuracy(model, x_test, y_test, HELD_OUT)
    return mon

"""A BERT-style masked language model whose loss reads the wrong positions: the masking
step chose positions in the sentence, then a [CLS] token was put in front of the sentence
but not in front of the list of chosen positions. Every position the loss reads is the one
just before a [MASK], whose own token is in plain view: the model learns to copy its input
and never learns to fill in a mask.

Reported: "Shouldn't we add an extra True token to the inverse_token_mask when adding extra
CLS token to the sentence?" - https://github.com/coaxsoft/pytorch_bert/issues/1 ("you are
adding extra `CLS` token to the `sentence`, but no extra `True` token to the
`inverse_token_mask`. This creates an alignment issue ... `[MASK]` token is actually at the
index of `5` but in the `token_mask` row it is marked at the index of `4`"; the maintainer:
"You're right. This is definitely an issue"). Here a bidirectional GRU encoder (BERT's in
the report: the bug is in the data) on 31-character windows of the sonnets, 15% of
characters masked. Fix: shift the chosen positions by the [CLS] in front.

Measured (200 steps, seed 0, then the masked characters of 256 held-out windows scored at
their own positions): bug: last training loss 0.38 (it copies), masked-character accuracy
0.25; fixed: last training loss 1.66, masked-character accuracy 0.53.
Named by LOSS_READS_UNMASKED_TOKENS (monitor/visible_targets.py: the positions read are the
ones before the masks, their labels in plain view).
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import characters, text_windows

TITLE = ("Shouldn't we add an extra True token to the inverse_token_mask when adding extra CLS "
         "token to the sentence?")
LINK = "https://github.com/coaxsoft/pytorch_bert/issues/1"
EXPECTED = ("LOSS_READS_UNMASKED_TOKENS", "TARGETS_IN_INPUTS", "LABELS_MISALIGNED")
STEPS = 200
MASK_SHARE = 0.15
LENGTH = 32          # characters a window holds, [CLS] included


class MaskedLM(nn.Module):
    """A bidirectional encoder (a BiGRU here, BERT's encoder in the report: the bug is in
    the data, not the model) with a head over the vocabulary at every position."""

    def __init__(self, vocab, dim=64):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.encoder = nn.GRU(dim, dim, batch_first=True, bidirectional=True)
        self.head = nn.Linear(2 * dim, vocab)

    def forward(self, input_ids):
        return self.head(self.encoder(self.embed(input_ids))[0])


def masked_batch(windows, vocab, fixed, generator):
    """(input_ids with [CLS] in front and [MASK]s, labels: -100 except where the loss
    reads)."""
    mask_id, cls_id = vocab, vocab + 1
    chosen = torch.rand(windows.shape, generator=generator) < MASK_SHARE
    masked = windows.masked_fill(chosen, mask_id)
    cls = torch.full_like(windows[:, :1], cls_id)
    input_ids = torch.cat([cls, masked], dim=1)          # the sentence moves one to the right
    targets = torch.cat([cls, windows], dim=1)
    read = torch.cat([torch.zeros_like(chosen[:, :1]), chosen], dim=1)
    if not fixed:
        read = torch.cat([chosen, torch.zeros_like(chosen[:, :1])], dim=1)  # BUG: no [CLS]
    labels = targets.masked_fill(~read, -100)
    return input_ids, labels


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = MaskedLM(vocab + 2)                 # + [MASK] and [CLS]
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    g = torch.Generator().manual_seed(0)
    with nd.watch(model, optimizer, **watch) as mon:
        for window in text_windows(ids, steps, length=LENGTH - 2):
            input_ids, labels = masked_batch(window, vocab, fixed, g)
            optimizer.zero_grad()
            logits = model(input_ids)
            loss = F.cross_entropy(logits.transpose(1, 2), labels)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.measured_loss = loss.item()
    held_out = next(text_windows(ids, 1, batch_size=256, length=LENGTH - 2, seed=1))
    mon.measured_accuracy = masked_accuracy(model, held_out, vocab)
    return mon


def masked_accuracy(model, windows, vocab):
    """Share of masked characters predicted at their own positions (the measurement)."""
    g = torch.Generator().manual_seed(1)
    input_ids, labels = masked_batch(windows, vocab, True, g)
    with torch.no_grad():
        predicted = model(input_ids).argmax(-1)
    read = labels != -100
    return (predicted[read] == labels[read]).float().mean().item()

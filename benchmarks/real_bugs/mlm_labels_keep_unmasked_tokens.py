"""A masked language model whose labels keep every token: the masking step replaced 15% of
the inputs with [MASK] but left the labels of the other 85% as they were, where they should
be -100 (ignored). Most of the loss is then paid for copying the visible input token to
the output, the training loss looks excellent, and the few positions that teach the model
to fill in a mask weigh a sixth of the loss.

Reported: "MaskedLM models doesn't output CLS and weights not initialized in MaskedLM
models" - https://github.com/huggingface/transformers/issues/20797 (the maintainer: "mask
labels of non-[MASK] tokens: labels = torch.where(inputs.input_ids ==
tokenizer.mask_token_id, labels, -100)"; a user: "I also used to not mask all the
non-masked tokens in the labels during training, this would give me losses in the range
of 0.10 - 0.20 ... now the loss is up to 1.6ish during training"). Here a bidirectional
GRU encoder on 31-character windows of the sonnets. Fix: labels -100 wherever the input
is not a [MASK].

Measured (200 steps, seed 0; the masked characters of 256 held-out windows): bug: last
training loss 0.28 (mostly copying), masked-character accuracy 0.48, loss 1.70; fixed:
last training loss 1.66, masked accuracy 0.52, loss 1.58. The harm is mild at this size:
the copying positions are learnt fast, then weigh little in the gradient.
Named by LOSS_READS_UNMASKED_TOKENS (monitor/visible_targets.py: 85% of the positions the loss
reads show their label in the input; the [MASK] id stands at the rest).
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import characters, text_windows

TITLE = "MaskedLM models doesn't output CLS and weights not initialized in MaskedLM models"
LINK = "https://github.com/huggingface/transformers/issues/20797"
EXPECTED = ("LOSS_READS_UNMASKED_TOKENS", "TARGETS_IN_INPUTS")
STEPS = 200
MASK_SHARE = 0.15
LENGTH = 31


class MaskedLM(nn.Module):
    """A bidirectional encoder (BERT's in the report; the bug is in the labels) with a head
    over the vocabulary at every position."""

    def __init__(self, vocab, dim=64):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.encoder = nn.GRU(dim, dim, batch_first=True, bidirectional=True)
        self.head = nn.Linear(2 * dim, vocab)

    def forward(self, input_ids):
        return self.head(self.encoder(self.embed(input_ids))[0])


def masked_batch(windows, mask_id, fixed, generator):
    """(input_ids with [MASK]s, labels)."""
    chosen = torch.rand(windows.shape, generator=generator) < MASK_SHARE
    input_ids = windows.masked_fill(chosen, mask_id)
    if fixed:
        labels = windows.masked_fill(~chosen, -100)     # only the masked positions
    else:
        labels = windows.clone()      # BUG: the unmasked tokens keep their labels
    return input_ids, labels


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = MaskedLM(vocab + 1)                         # + [MASK]
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    g = torch.Generator().manual_seed(0)
    with nd.watch(model, optimizer, **watch) as mon:
        for window in text_windows(ids, steps, length=LENGTH - 1):
            input_ids, labels = masked_batch(window, vocab, fixed, g)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(input_ids).transpose(1, 2), labels)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.measured_loss = loss.item()
    held_out = next(text_windows(ids, 1, batch_size=256, length=LENGTH - 1, seed=1))
    input_ids, labels = masked_batch(held_out, vocab, True, torch.Generator().manual_seed(1))
    with torch.no_grad():
        logits = model(input_ids)
    read = labels != -100
    mon.measured_accuracy = (logits.argmax(-1)[read] == labels[read]).float().mean().item()
    mon.measured_masked_loss = F.cross_entropy(logits[read], labels[read]).item()
    return mon

"""An encoder-decoder Transformer trained with the annotated transformer's LabelSmoothing
criterion, built as ``LabelSmoothing(size=VOCAB, padding_idx=0, smoothing=0.1)`` - the
padding id of the tutorial's copy-task example - while in this vocabulary id 0 is a real
word (the digit 0) and the padding id is 11. The criterion zeroes column ``padding_idx`` of
every smoothed target and blanks every row whose target IS ``padding_idx``: the digit 0 is
never a target, and every position asks for probability 0 on it. The loss falls; the model
never writes a 0, so every held-out sentence whose translation holds one comes out wrong.

Reported: "label smoothing running error" -
https://github.com/harvardnlp/annotated-transformer/issues/39 (a target of 0 with
LabelSmoothing(5, 0, 0.4) gives an all-zero smoothed row; a reply: "padding_idx=0 means
that category 1 is considered 'padding'. In fact, there are only 4 categories"). Here the
tutorial's layout (1 encoder and 1 decoder layer, d_model 32, 4 heads, Generator with
log_softmax, KLDivLoss(reduction='sum') divided by the number of tokens, Noam warm-up over
50 steps) on a toy translation of 8-digit sentences through a fixed dictionary, written in
reverse order; batches of 32 fresh sentences, teacher forcing with SOS-shifted decoder
inputs. Fix: ``LabelSmoothing(size=VOCAB, padding_idx=PAD, smoothing=0.1)``.

Measured (held-out exact match of greedy translations, 500 sentences): 0.376 with the bug,
0.800 fixed; seeds + 1000: 0.434 vs 0.974.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._annotated_transformer import (D_MODEL, PAD, VOCAB, exact_match,
                                                         held_out, make_batch, make_model,
                                                         rate, sentences)

TITLE = "label smoothing running error"
LINK = "https://github.com/harvardnlp/annotated-transformer/issues/39"
EXPECTED = ("RARE_CLASS_NEVER_PREDICTED",)
STEPS = 200


class LabelSmoothing(nn.Module):
    """The tutorial's criterion: KL divergence to a smoothed one-hot target."""

    def __init__(self, size, padding_idx, smoothing=0.0):
        super().__init__()
        self.criterion = nn.KLDivLoss(reduction="sum")
        self.padding_idx, self.size = padding_idx, size
        self.confidence, self.smoothing = 1.0 - smoothing, smoothing

    def forward(self, x, target):
        true_dist = torch.full_like(x, self.smoothing / (self.size - 2))
        true_dist.scatter_(1, target.unsqueeze(1), self.confidence)
        true_dist[:, self.padding_idx] = 0
        true_dist[target == self.padding_idx] = 0
        return self.criterion(x, true_dist)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = make_model()
    # BUG: padding_idx=0 copied from the tutorial; 0 is the digit 0 here, PAD is 11
    criterion = LabelSmoothing(size=VOCAB, padding_idx=PAD if fixed else 0, smoothing=0.1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: rate(step, D_MODEL, factor=1.0, warmup=50))
    with nd.watch(model, optimizer, **watch) as mon:
        for source in sentences(steps, batch_size=32):
            src, decoder_input, target, src_mask, tgt_mask = make_batch(source)
            optimizer.zero_grad()
            log_probs = model(src, decoder_input, src_mask, tgt_mask)
            ntokens = (target != PAD).sum()
            loss = criterion(log_probs.reshape(-1, VOCAB), target.reshape(-1)) / ntokens
            loss.backward()
            optimizer.step()
            scheduler.step()
            mon.step(loss)
    mon.held_out_exact_match = exact_match(model, held_out())
    return mon

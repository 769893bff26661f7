"""A pretrained encoder and a new decoder put in two parameter groups - the encoder at a
tenth of the decoder's rate - and then handed to ``OneCycleLR`` with one number for
``max_lr``. OneCycleLR does not scale the groups' own rates: it writes its schedule, built
from ``max_lr``, into every group, so a scalar ``max_lr`` gives the pretrained encoder the
decoder's full peak rate and the two-group set-up does nothing. Training runs as usual (the
loss falls, the schedule rises and decays as a one-cycle schedule should), but the large
early steps tear the pretrained filters apart, and the fine-tuned model generalises like
one trained from scratch on the small target set.

Reported: "Bug in OneCycleLR" - https://github.com/shariqfarooq123/AdaBins/issues/44 (with
``same_lr`` off the encoder and decoder were meant to train at different rates, but the
printed optimizer showed both groups with the same ``max_lr`` and ``lr``: OneCycleLR wants a
list of peak rates, one per group, and the script passed a single number). Fix: pass
``max_lr`` as a list, the encoder's peak a tenth of the decoder's.

Here the batch-73 conv backbone (pretrained on 900 colour digits, batch norm, in
``_pretrained_cnn``) gets a new ten-way head and is fine-tuned on 100 other digits with
AdamW under a 150-step one-cycle schedule, peak rate 0.03 for the head.

Measured (297 held-out digits): seed 0, held-out accuracy 0.78 for the bug against 0.87 for
the fixed twin; seeds shifted by 1000, 0.83 against 0.87.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import batches
from benchmarks.real_bugs._ft188 import (Classifier, accuracy, pretrained_backbone,
                                         target_task, torch_preprocess)

TITLE = "Bug in OneCycleLR"
LINK = "https://github.com/shariqfarooq123/AdaBins/issues/44"
EXPECTED = ("GROUP_RATES_OVERWRITTEN", "LR_TOO_HIGH")
STEPS = 150
LR = 0.03                # the decoder's (new head's) peak rate
ENCODER_FRACTION = 0.1   # the encoder's rate relative to it
TRAIN_ROWS = 100


def run(fixed=False, steps=STEPS, **watch):
    body, stats = pretrained_backbone("torch")
    (x, y), (x_held, y_held) = target_task(TRAIN_ROWS)
    x, x_held = torch_preprocess(x, stats), torch_preprocess(x_held, stats)
    torch.manual_seed(0)
    model = Classifier(body).train()
    optimizer = torch.optim.AdamW(
        [{"params": model.backbone.parameters(), "lr": LR * ENCODER_FRACTION},
         {"params": model.head.parameters(), "lr": LR}], weight_decay=1e-4)
    if fixed:
        peaks = [LR * ENCODER_FRACTION, LR]       # one peak per group
    else:
        peaks = LR                                # BUG: one peak written into both groups
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=peaks,
                                                   total_steps=steps)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, batch_size=32):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            schedule.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_held, y_held)
    return mon


if __name__ == "__main__":
    for fixed in (False, True):
        print("fixed" if fixed else "bug", run(fixed).held_out_accuracy)

"""A CLIP-style two-tower model trained with a contrastive loss that scores only one
direction: the similarity matrix (texts x images, times the learnable scale) goes through
one ``F.cross_entropy`` against ``arange``, so each text learns to pick its image among the
batch's images, but no image is ever asked to pick its text among the batch's texts.
CLIP's objective is the mean of both cross-entropies (over rows and over columns). The
loss falls as fast as the symmetric one; nothing errors; retrieval in the direction that
was never trained comes out worse.

Reported: "CLIP: Loss in implementation vs. in paper" -
https://github.com/lucidrains/DALLE-pytorch/issues/32 (the reporter pointed out that the
repository's CLIP called the cross-entropy once, a softmax over one axis only, while the
paper averages the losses over both axes; the maintainer agreed and made the loss
symmetric). Here: digits paired with a caption-like token sequence read off the same image
(benchmarks/real_bugs/_clip_pairs.py), an MLP image tower and an embedding-bag text tower.
Fix: ``(cross_entropy(logits, labels) + cross_entropy(logits.T, labels)) / 2``.

Measured (300 Adam steps, batch 64, 1,297 training pairs, retrieval among the 500 held-out
pairs, seed 0): in the direction the loss left out (held-out images retrieving their
caption; the loss's rows are the texts) recall@1 0.32 and recall@5 0.71 for the bug against
0.34 and 0.77 for the fixed twin; the trained direction is unharmed (0.45 / 0.82 against
0.46 / 0.81). Seeds shifted by 1000: 0.33 / 0.74 against 0.38 / 0.80 in the untrained
direction. The harm is real but modest at this scale.
"""
import torch
from torch.nn import functional as F

from benchmarks.real_bugs._clip_pairs import held_out_retrieval, symmetric_loss, train_two_tower

TITLE = "CLIP: Loss in implementation vs. in paper"
LINK = "https://github.com/lucidrains/DALLE-pytorch/issues/32"
EXPECTED = ("ONE_SIDED_CONTRASTIVE_LOSS",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    def loss_of(model, image, text):
        logits = model.logit_scale.exp() * text @ image.T      # rows: texts
        if fixed:
            return symmetric_loss(logits)
        # BUG: one softmax axis only, the images never pick a text
        return F.cross_entropy(logits, torch.arange(len(logits)))

    mon, model, held_images, held_texts, _ = train_two_tower(steps, loss_of, **watch)
    mon.held_out_retrieval = held_out_retrieval(model, held_images, held_texts)
    return mon

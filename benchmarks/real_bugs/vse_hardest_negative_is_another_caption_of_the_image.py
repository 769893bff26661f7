"""An image-caption dual encoder trained with VSE++'s hinge loss on the HARDEST in-batch
negative, on a dataset with several captions per image, batched by caption: the same image
often sits in a batch twice, paired with two of its captions, and the loss masks only the
diagonal. For such a row the "hardest negative" is the image itself (or its other caption):
its score equals the positive's, so the hinge is stuck at the margin with no useful gradient,
or it pushes an image away from one of its own captions. A good share of every batch teaches
nothing or the wrong thing; the summed loss still falls.

Reported: "Batch formation potentially causing false negatives" -
https://github.com/fartashf/vsepp/issues/6 ("it is possible that two or more of the images
in that batch will be identical ... the (5, 19) and (19, 5) entries will be incorrectly
treated as scores for unaligned embeddings"). The maintainer: harmless "at the scale of
MS-COCO"; it is not on a small set. Here 120 digit images with 5 captions each (the
``_clip_pairs`` layout tokens read off the image under different pixel noise), batches of
64 (image, caption) pairs drawn by caption, the image and text towers of ``_clip_pairs``,
margin 0.2 with max violation, Adam, 300 steps; retrieval scored between the 120 images and
a new caption of each, read under fresh noise.

Fix: mask every pair whose caption belongs to the row's image (same image id), not only the
diagonal, before taking the hardest negative.

Measured (held-out mean recall@1, both directions, a sixth unseen caption of each of the
120 images): 0.333 with the bug, 0.379 fixed; seeds + 1000: 0.321 vs 0.379.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._clip_pairs import (ImageTower, TextTower, captions,
                                              held_out_retrieval, index_batches, noisy,
                                              pairs)

TITLE = "Batch formation potentially causing false negatives"
LINK = "https://github.com/fartashf/vsepp/issues/6"
EXPECTED = ("CONFLICTING_LABELS_ON_IDENTICAL_INPUTS",)
STEPS = 300
IMAGES = 120
CAPTIONS = 5
MARGIN = 0.2


class VSE(nn.Module):
    """Image tower and caption tower (VSE++ has no learned temperature)."""

    def __init__(self):
        super().__init__()
        self.image = ImageTower()
        self.text = TextTower()


def caption_set(images, generator):
    """Five captions per image: the layout tokens read off five noisy copies."""
    texts = [captions(noisy(images, generator, sigma=0.12).clamp(0, 1))
             for _ in range(CAPTIONS)]
    return torch.stack(texts, 1).reshape(-1, texts[0].shape[1])


def max_violation_loss(image, text, image_ids, fixed):
    scores = image @ text.T
    positive = scores.diag()
    if fixed:
        same = image_ids[:, None] == image_ids[None, :]
    else:
        same = torch.eye(len(scores), dtype=torch.bool)   # BUG: only the diagonal masked
    cost_text = (MARGIN + scores - positive[:, None]).clamp(min=0).masked_fill(same, 0)
    cost_image = (MARGIN + scores - positive[None, :]).clamp(min=0).masked_fill(same, 0)
    return cost_text.max(1).values.sum() + cost_image.max(0).values.sum()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    held_generator = torch.Generator().manual_seed(1)
    (images, _, _), _ = pairs()
    images = images[:IMAGES]
    texts = caption_set(images, generator)                 # caption k of image k // 5
    owner = torch.arange(IMAGES).repeat_interleave(CAPTIONS)
    model = VSE()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(texts), steps, seed=0):
            ids = owner[index]
            image = F.normalize(model.image(noisy(images[ids], generator)), dim=1)
            text = F.normalize(model.text(texts[index]), dim=1)
            loss = max_violation_loss(image, text, ids, fixed)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    new_captions = captions(noisy(images, held_generator, sigma=0.12).clamp(0, 1))
    scores = held_out_retrieval(model, images, new_captions)
    mon.held_out_recall_at_1 = (scores["i2t@1"] + scores["t2i@1"]) / 2
    return mon

"""CLIP fine-tuned as a classifier: each image's caption is a short prompt naming its class,
and a batch is dominated by one class (here 38 of every 64 images are ones, the rest drawn
from the other nine digits). The loss still treats the batch as 64 distinct pairs
(``arange`` labels): every image is told that the 37 other, identical "one" captions are
negatives, and every "one" caption that it must pick its own image among 38 others of
the same class, which no embedding can do. The identical captions get contradictory
targets; the loss sits high (its floor is far above zero) and the gradient it leaves is
mostly noise between indistinguishable pairs. Nothing errors; zero-shot classification
comes out worse.

Reported: "关于训练过程一个batch内，text文本标签存在较多重复，是否会导致训练不收敛" (within a
batch many text labels repeat: will training fail to converge?) -
https://github.com/OFA-Sys/Chinese-CLIP/issues/266 (fine-tuning for image classification
with about 60% of a batch's images sharing one label; a second user agreed that the same
text should not appear twice in a batch; see also #111 of the same repository, where the
maintainers confirm that a repeated text in a batch is trained as a negative). Here:
digits, captions of two tokens (one of three template words, then the digit's name), an
MLP image tower and an embedding text tower.
Fix: targets that know the classes: every caption in the batch with the image's label is a
positive (the row of the same-label mask, normalised, as soft cross-entropy targets, in
both directions).

Measured (300 Adam steps, batch 64 with 38 ones, seed 0; zero-shot accuracy of the 500
held-out digits against the ten captions "<template 0> <digit>"): 0.91 for the bug against
0.94 for the fixed twin (seeds shifted by 1000: 0.91 against 0.93). With class-balanced batches (about 6 repeats per class) the
harm was small: 0.93 against 0.95.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._clip_pairs import TwoTower, classification, noisy, symmetric_loss

TITLE = "关于训练过程一个batch内，text文本标签存在较多重复，是否会导致训练不收敛"
LINK = "https://github.com/OFA-Sys/Chinese-CLIP/issues/266"
EXPECTED = ("CONTRASTIVE_DUPLICATES_AS_NEGATIVES", "CONFLICTING_LABELS_ON_IDENTICAL_INPUTS")
STEPS = 300
TRAIN = 1297
TEMPLATES = 3
DOMINANT, DOMINANT_PER_BATCH, OTHERS_PER_BATCH = 1, 38, 26


def class_captions(labels, templates):
    """Two tokens: a template word (0-2), then the digit's name (3-12)."""
    return torch.stack([templates, TEMPLATES + labels], 1)


def clip_loss(logits, labels, fixed):
    if fixed:                 # every same-label caption (and image) is a positive
        same = (labels[:, None] == labels[None]).float()
        targets = same / same.sum(1, keepdim=True)
        return (F.cross_entropy(logits, targets) + F.cross_entropy(logits.T, targets)) / 2
    return symmetric_loss(logits)      # BUG: repeated captions trained as negatives


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    x, y = classification()
    images, labels, held_images, held_labels = x[:TRAIN], y[:TRAIN], x[TRAIN:], y[TRAIN:]
    texts = class_captions(labels, torch.randint(0, TEMPLATES, (TRAIN,), generator=generator))
    dominant = torch.nonzero(labels == DOMINANT).flatten()
    others = torch.nonzero(labels != DOMINANT).flatten()
    model = TwoTower(vocab=TEMPLATES + 10)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            index = torch.cat([
                dominant[torch.randint(len(dominant), (DOMINANT_PER_BATCH,), generator=generator)],
                others[torch.randint(len(others), (OTHERS_PER_BATCH,), generator=generator)]])
            optimizer.zero_grad()
            image = F.normalize(model.image(noisy(images[index], generator)), dim=1)
            text = F.normalize(model.text(texts[index]), dim=1)
            loss = clip_loss(model.logit_scale.exp() * image @ text.T, labels[index], fixed)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        prompts = class_captions(torch.arange(10), torch.zeros(10, dtype=torch.long))
        similarity = (F.normalize(model.image(held_images), dim=1)
                      @ F.normalize(model.text(prompts), dim=1).T)
        mon.held_out_accuracy = (similarity.argmax(1) == held_labels).float().mean().item()
    return mon

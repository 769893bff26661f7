"""A steganalysis pair dataset that splits file paths on the Windows separator: on Linux
the "file name" it keeps is the whole cover path, and ``os.path.join(stego_dir, that)``
with an absolute path returns the cover path itself. Every pair is then the cover image
twice, labelled 0 ("cover") and 1 ("stego"): no network can tell them apart, the
cross-entropy sits at ln 2 = 0.6931 from the first epoch, and the detector learns nothing.

Reported: "why always loss equal 0.6931?" -
https://github.com/1204BUPT/Zhu-Net-image-steganalysis/issues/1 (the answer:
"utils_for_dataset.py, line 15 self.cover_list = [x.split('\\\\')[-1] for x in
glob(cover_dir + '/*')] change to: self.cover_list = [x.split(os.sep)[-1] ...] If you run
the program in linux system cause '\\\\' is for windows"; that dataset returns each cover
and its stego image stacked, labels [0, 1]). Here covers are 8x8 digits and each stego
image carries a +-0.25 payload on a random half of its pixels; the batch holds the pairs
stacked as that dataset does. Fix: split on os.sep (or use os.path.basename).

Measured (200 steps, 128 held-out pairs read correctly): the bug's detection accuracy is
0.61 (chance is 0.5; its training loss stays at 0.693), the fixed twin's 1.00.
"""
import os

import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._common import classification

TITLE = "why always loss equal 0.6931?"
LINK = "https://github.com/1204BUPT/Zhu-Net-image-steganalysis/issues/1"
EXPECTED = ("CONFLICTING_LABELS_ON_IDENTICAL_INPUTS",)
STEPS = 200
PAIRS_PER_BATCH = 16
PAYLOAD = 0.25
COVER_DIR, STEGO_DIR = "/data/cover", "/data/stego"


def kept_name(path, fixed):
    # BUG (fixed=False): the Windows separator - on Linux nothing is split off
    return path.split(os.sep)[-1] if fixed else path.split("\\")[-1]


def pairs(covers, steps, fixed, seed=0):
    """``steps`` batches as the pair dataset yields them: (2 * PAIRS, 1, 8, 8) images, each
    cover followed by the file read from the stego path, and labels 0, 1, 0, 1, ..."""
    rng = np.random.default_rng(seed)
    stego = {}
    for index in range(steps):
        chosen = rng.choice(len(covers), PAIRS_PER_BATCH, replace=False)
        images = []
        for i in chosen.tolist():
            name = kept_name(f"{COVER_DIR}/{i}.pgm", fixed)
            stego_path = os.path.join(STEGO_DIR, name)      # the cover's own path in the bug
            if i not in stego:
                hidden = rng.choice([-PAYLOAD, 0.0, 0.0, PAYLOAD], covers[i].shape)
                stego[i] = covers[i] + torch.from_numpy(hidden.astype(np.float32))
            read = covers[i] if stego_path.startswith(COVER_DIR) else stego[i]
            images += [covers[i], read]
        labels = torch.tensor([0, 1] * PAIRS_PER_BATCH)
        yield torch.stack(images), labels


def detector():
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 2))


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    covers, _ = classification(images=True)
    model = detector()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for images, labels in pairs(covers[:-256], steps, fixed):
            optimizer.zero_grad()
            loss = loss_fn(model(images), labels)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        images, labels = (torch.cat(parts) for parts in
                          zip(*pairs(covers[-256:], 8, fixed=True, seed=1)))
        mon.accuracy = round(float((model(images).argmax(1) == labels).float().mean()), 3)
    return mon

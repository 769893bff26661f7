"""A video clip's random-crop augmentation draws a new crop window for every frame
instead of one window for the whole clip: the augmentation container was asked for the
same parameters on every frame (``same_on_frame=True``) but its random crop ignored the
flag. Nothing fails and the frames have the right size; the crop jitter (a few pixels
each way, frame to frame) is laid over the real motion, so the training clips show a
shaking scene and the motion between frames - what an action recogniser reads - is
mostly noise. The held-out clips are centre-cropped and move smoothly.

Reported: "Bug Report: VideoSequential same_on_batch=False and same_on_frame=True not
working correctly" - https://github.com/kornia/kornia/issues/3194 (the reporter built
videos of identical frames, cropped them through ``VideoSequential(RandomCrop(...),
same_on_frame=True)`` and showed the frames of one video came out different: the crop
ignored ``same_on_frame``; the expected behaviour is one crop per video). Here 16-frame
videos of 20x20 pixels with a square moving in one of four directions at one or two
pixels a frame (eight classes, benchmarks/real_bugs/_video_clips.py), random 16x16
crops, a small C3D-like network. Fix: one crop window per clip, shared by its frames.

Measured (300 Adam steps, batch 32, 2,000 training videos, 600 held-out videos
centre-cropped): held-out clip accuracy 0.64 with the bug against 0.85 for the fixed twin
at seed 0; seeds shifted by 1000: 0.51 against 0.83.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._video_clips import TinyC3D, accuracy, index_batches, render

TITLE = ("Bug Report: VideoSequential same_on_batch=False and same_on_frame=True not "
         "working correctly")
LINK = "https://github.com/kornia/kornia/issues/3194"
EXPECTED = ("AUGMENTATION_DIFFERS_ACROSS_FRAMES",)
STEPS = 300
FRAMES, FULL, CROP = 16, 20, 16
TRAIN, HELD_OUT = 2000, 600


def random_crop(videos, generator, fixed):
    """(N, T, FULL, FULL) -> (N, T, CROP, CROP): one window per clip (fixed) or one per
    frame (the bug)."""
    n, t = videos.shape[:2]
    shape = (n, 1) if fixed else (n, t)       # BUG: a window drawn for every frame
    top = torch.randint(0, FULL - CROP + 1, shape, generator=generator).expand(n, t)
    left = torch.randint(0, FULL - CROP + 1, shape, generator=generator).expand(n, t)
    rows = (top[..., None] + torch.arange(CROP))[..., :, None]          # (n, t, CROP, 1)
    cols = (left[..., None] + torch.arange(CROP))[..., None, :]         # (n, t, 1, CROP)
    batch = torch.arange(n)[:, None, None, None]
    frame = torch.arange(t)[None, :, None, None]
    return videos[batch, frame, rows, cols]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(int(torch.randint(0, 2**31 - 1, ()).item()))
    videos, labels = render(TRAIN, FRAMES, seed=0, size=FULL)
    held_videos, held_labels = render(HELD_OUT, FRAMES, seed=0, held_out=True,
                                      size=FULL)
    model = TinyC3D()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(TRAIN, steps):
            clips = random_crop(videos[index], generator, fixed)[:, None] / 255
            optimizer.zero_grad()
            loss = loss_fn(model(clips), labels[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    edge = (FULL - CROP) // 2
    held = held_videos[:, :, edge:edge + CROP, edge:edge + CROP][:, None] / 255
    mon.held_out_accuracy = accuracy(model, held, held_labels)
    return mon

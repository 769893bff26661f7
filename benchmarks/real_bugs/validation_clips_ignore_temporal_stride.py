"""A 3-D CNN trained on clips sampled every second frame is validated on clips of
consecutive frames: the validation crop rebuilds its frame list from the clip's first and
last index (``range(begin, end)``) and so drops the stride the training sampler applied.
Training is untouched and looks healthy; every validation clip plays at half the speed
the network learnt, so what it learnt as a fast motion looks slow, and the reported
validation accuracy is wrong.

Reported: "Bug in TemporalEvenCrop" -
https://github.com/kenshohara/3D-ResNets-PyTorch/issues/254 (the reporter found that the
validation set's temporal crop overwrote the subsampling set up in main.py, so the videos
from the validation set were always sampled with stride 1 even when
``sample_t_stride`` > 1, and proposed slicing the strided frame list instead). Here
32-frame videos of a square moving in one of four directions at half a pixel or one pixel
a frame (eight classes, benchmarks/real_bugs/_video_clips.py); a small C3D-like network
trains on 8-frame clips taken every second frame from a random start; the held-out
videos are scored on their centre clip. Fix: the validation clip keeps the training
stride (every second frame of the centre window).

Measured (300 Adam steps, batch 32, 2,000 training videos, 600 held-out videos): clip
accuracy on the held-out videos 0.49 with the bug against 1.00 for the fixed twin at
seed 0; seeds shifted by 1000: 0.49 against 1.00. (The bug halves every speed: the fast
classes are read as the slow ones of their direction.)
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._video_clips import TinyC3D, accuracy, index_batches, render

TITLE = "Bug in TemporalEvenCrop"
LINK = "https://github.com/kenshohara/3D-ResNets-PyTorch/issues/254"
EXPECTED = ("VALIDATION_CLIPS_RESAMPLED",)
STEPS = 300
FRAMES, CLIP, STRIDE = 32, 8, 2
TRAIN, HELD_OUT = 2000, 600


def training_clips(videos, generator):
    """One clip per video: CLIP frames every STRIDE frames from a random start."""
    span = CLIP * STRIDE
    starts = torch.randint(0, FRAMES - span + 1, (len(videos),), generator=generator)
    index = starts[:, None] + STRIDE * torch.arange(CLIP)
    return torch.gather(videos, 1, index[:, :, None, None].expand(-1, -1, *videos.shape[2:]))


def validation_clips(videos, fixed):
    """The centre window of CLIP * STRIDE frames of every held-out video."""
    begin = (FRAMES - CLIP * STRIDE) // 2
    frame_indices = list(range(begin, begin + CLIP * STRIDE, STRIDE))   # the strided list
    if fixed:
        sample = frame_indices                                # keeps the stride
    else:   # BUG: rebuilt from the window's start, consecutive frames (stride 1)
        sample = list(range(frame_indices[0], frame_indices[0] + CLIP))
    return videos[:, sample]


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(int(torch.randint(0, 2**31 - 1, ()).item()))
    videos, labels = render(TRAIN, FRAMES, speeds=(0.5, 1.0), seed=0)
    held_videos, held_labels = render(HELD_OUT, FRAMES, speeds=(0.5, 1.0), seed=0,
                                      held_out=True)
    model = TinyC3D()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(TRAIN, steps):
            clips = training_clips(videos[index], generator)[:, None] / 255
            optimizer.zero_grad()
            loss = loss_fn(model(clips), labels[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    held = validation_clips(held_videos, fixed)[:, None] / 255
    mon.held_out_accuracy = accuracy(model, held, held_labels)
    return mon

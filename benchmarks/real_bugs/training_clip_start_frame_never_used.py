"""A video data loader that draws a random start frame for each training clip and then
never uses it: the frames are read from the first frame of the video every time, so every
epoch trains on the same opening clip of every video. Nothing errors and the loss falls
(the opening clips are learnt), but the model never sees the rest of the videos - in
trimmed real videos often the part where the action actually happens - and it is tested
on clips from the middle, where the action is.

Reported: "random frame is not working?" - https://github.com/craston/MARS/issues/3
(MARS's training dataset computed ``start_frame`` at random but did not pass it to the
frame loader, "meaning always fetching the same clip from the first frame for each
video"; the maintainer: "Thanks for spotting the bug", and fixed ``dataset.py`` to load
from the drawn start). Here: action videos of 32 frames whose square stands still for a
random 0-16 frames before moving (_vid.render_with_onset; 8 classes, four directions at
two speeds), 8-frame training clips, batch 127's TinyC3D (_video_clips), Adam; held-out
videos scored on their centre clip (frames 12-19, as the test loaders of such code
bases take it). Fix: the clip read from the drawn start frame.

Measured (300 steps; held-out centre-clip accuracy, 600 videos, chance 0.125): seed 0,
0.66 for the bug against 0.96 for the fixed twin; seeds shifted by 1000, 0.60 against 0.93.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._video_clips import TinyC3D, accuracy, index_batches
from benchmarks.real_bugs._vid import render_with_onset

TITLE = "random frame is not working?"
LINK = "https://github.com/craston/MARS/issues/3"
EXPECTED = ("TRAINING_CLIPS_NEVER_RESAMPLED",)
STEPS = 300
FRAMES, CLIP, MAX_ONSET = 32, 8, 16
TRAIN, HELD_OUT = 2000, 600


def training_clips(videos, fixed, generator):
    """One CLIP-frame clip per video, from a start frame drawn at random."""
    start_frame = torch.randint(0, FRAMES - CLIP + 1, (len(videos),), generator=generator)
    if fixed:
        first = start_frame
    else:      # BUG: start_frame is drawn but the loader reads from frame 0
        first = torch.zeros_like(start_frame)
    index = first[:, None] + torch.arange(CLIP)
    return torch.gather(videos, 1, index[:, :, None, None].expand(-1, -1, *videos.shape[2:]))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(int(torch.randint(0, 2**31 - 1, ()).item()))
    videos, labels, _ = render_with_onset(TRAIN, FRAMES, MAX_ONSET, seed=0)
    held_videos, held_labels, _ = render_with_onset(HELD_OUT, FRAMES, MAX_ONSET, seed=0,
                                                    held_out=True)
    model = TinyC3D()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(TRAIN, steps):
            clips = training_clips(videos[index], fixed, generator)[:, None] / 255
            optimizer.zero_grad()
            loss = loss_fn(model(clips), labels[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    centre = (FRAMES - CLIP) // 2
    held = held_videos[:, centre:centre + CLIP][:, None] / 255
    mon.held_out_accuracy = accuracy(model, held, held_labels)
    return mon

"""Training clips are flipped left-right at random (the usual image augmentation) in a
dataset whose classes name a direction ("pulling something from left to right"): a
flipped clip shows the opposite action under the original label. Nothing fails; half of
the examples of each left/right class are the other class's motion, so the network cannot
tell the two apart and guesses between them on held-out clips.

Reported: "Training Something-Something datasets with horizontal flipping" -
https://github.com/arunos728/MotionSqueeze/issues/1 (the reporter noted the code trains
Something-Something with horizontal flipping although some classes are "left"/"right"
ones; the authors agreed, changed the code to flip only clips whose class names no left
or right, and top-1 accuracy rose from 45.5% to 46.0%; mmaction2 later added a flip that
swaps such labels, issue #590). Here 16-frame clips of a square moving right, left, down
or up at one or two pixels a frame (eight classes, benchmarks/real_bugs/_video_clips.py):
the left/right classes are half of the data. A small C3D-like network. Fix: flip only the
clips whose class has no left/right direction (up/down motion stays what it is when
flipped).

Measured (300 Adam steps, batch 32, 2,000 training videos, 600 held-out videos): held-out
clip accuracy 0.76 with the bug against 1.00 for the fixed twin at seed 0; seeds shifted by
1000: 0.75 against 0.96.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._video_clips import TinyC3D, accuracy, index_batches, render

TITLE = "Training Something-Something datasets with horizontal flipping"
LINK = "https://github.com/arunos728/MotionSqueeze/issues/1"
EXPECTED = ("AUGMENTATION_CHANGES_LABEL",)
STEPS = 300
FRAMES = 16
TRAIN, HELD_OUT = 2000, 600
LEFT_RIGHT = torch.tensor([0, 1, 2, 3])      # classes 0-3 move right or left (2 speeds)


def random_flip(clips, labels, generator, fixed):
    """Flip half of the clips left-right (along the width axis)."""
    flip = torch.rand(len(clips), generator=generator) < 0.5
    if fixed:       # the report's fix: never flip a clip whose class has a direction
        flip &= ~torch.isin(labels, LEFT_RIGHT)
    clips = clips.clone()
    clips[flip] = clips[flip].flip(-1)
    return clips


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(int(torch.randint(0, 2**31 - 1, ()).item()))
    videos, labels = render(TRAIN, FRAMES, seed=0)
    held_videos, held_labels = render(HELD_OUT, FRAMES, seed=0, held_out=True)
    model = TinyC3D()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(TRAIN, steps):
            clips = random_flip(videos[index], labels[index], generator, fixed)
            optimizer.zero_grad()
            loss = loss_fn(model(clips[:, None] / 255), labels[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, held_videos[:, None] / 255, held_labels)
    return mon

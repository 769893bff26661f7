"""A video frame interpolation network for arbitrary time steps, trained with the usual
temporal-flip augmentation - the two input frames swapped at random - but without
reversing the time step that goes with them: after the swap the target frame lies at
``1 - t`` from the new first frame, and the network is still told ``t``. Half the samples
then say "the frame a third of the way from A to B" and the other half say the same
words about the frame two thirds of the way; the network cannot tell the two apart and
learns their average, a frame near the middle for every requested time. The loss falls
(the middle frame is a fair guess for every target), nothing errors, and interpolation at
t = 0.5 looks fine; every other time step comes out at the wrong moment.

Reported: "Time error in arbitrary timestep interpolation." -
https://github.com/MCG-NJU/EMA-VFI/issues/29 (EMA-VFI retrained on Vimeo90K septuplets for
arbitrary-time interpolation produced frames at distorted times, the third inserted frame
regressing toward the second; the reporter found the cause: "the reversal of I0 and I1,
without reversal of timestep"; the fix is ``t -> 1 - t`` whenever the inputs are swapped).
Here: septuplets of a smooth random texture sliding at a constant velocity (up to 0.5
px a frame: 3 px from the first to the seventh frame; _vid.moving_textures), inputs frames
1 and 7, the target one of frames 2-6 at t = 1/6 ... 5/6, a small fully convolutional
network reading both frames and a constant map of t and predicting the residual to their
mean, L1 loss, Adam; the inputs swapped with probability 0.5. Fix: t replaced by 1 - t
when they are.

Measured (800 steps; held-out PSNR of the interpolated frames at t = 1/6 and 5/6, 256
septuplets, inputs in their natural order): seed 0, 23.3 dB for the bug against 31.5 dB
for the fixed twin; seeds shifted by 1000, 23.0 against 31.4. At t = 1/2 the two are close
(26.8 against 27.8; 26.5 against 27.2), as the report saw: the middle frame is right.
"""
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._depth_flow import batches, conv_net
from benchmarks.real_bugs._vid import moving_textures, psnr

TITLE = "Time error in arbitrary timestep interpolation."
LINK = "https://github.com/MCG-NJU/EMA-VFI/issues/29"
EXPECTED = ("AUGMENTATION_CHANGES_LABEL",)
STEPS = 800
FRAMES, MAX_SPEED = 7, 0.5
TRAIN, HELD_OUT = 1024, 256


def interpolate(model, first, last, t):
    t_map = t[:, None, None, None].expand_as(first)
    return 0.5 * (first + last) + model(torch.cat([first, last, t_map], dim=1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    videos, _ = moving_textures(TRAIN, FRAMES, MAX_SPEED)
    held, _ = moving_textures(HELD_OUT, FRAMES, MAX_SPEED)
    model = conv_net(3, 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in batches(TRAIN, steps):
            clip = videos[index]
            k = torch.randint(1, FRAMES - 1, (len(index),))
            target = clip[torch.arange(len(index)), k]
            first, last = clip[:, 0], clip[:, -1]
            t = k.float() / (FRAMES - 1)
            swap = torch.rand(len(index)) < 0.5             # temporal-flip augmentation
            s = swap[:, None, None, None]
            first, last = torch.where(s, last, first), torch.where(s, first, last)
            if fixed:
                t = torch.where(swap, 1 - t, t)     # the target is now 1 - t from `first`
            # BUG (fixed=False): t kept as it was before the swap
            loss = (interpolate(model, first, last, t) - target).abs().mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    scores = {}
    with torch.no_grad():
        for k in range(1, FRAMES - 1):
            t = torch.full((HELD_OUT,), k / (FRAMES - 1))
            scores[k] = psnr(interpolate(model, held[:, 0], held[:, -1], t), held[:, k])
    mon.held_out_psnr_off_middle = (scores[1] + scores[FRAMES - 2]) / 2
    mon.held_out_psnr_middle = scores[(FRAMES - 1) // 2]
    return mon

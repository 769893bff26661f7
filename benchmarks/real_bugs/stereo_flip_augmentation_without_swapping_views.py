"""Self-supervised monocular depth trained on stereo pairs (monodepth-style: the network
sees the left view, predicts a disparity map, and is trained by how well the right view
warped by that disparity rebuilds the left) with a horizontal-flip augmentation that flips
both views but keeps them in place. A mirrored stereo pair is a pair whose cameras have
swapped sides: the flipped left view now sits to the RIGHT of the flipped right view, its
content shifted the other way, and the disparity that rebuilds it is negative - which a
sigmoid-bounded disparity head cannot give. Half the batches therefore pull every
disparity toward zero (the best a positive disparity can do there) while the other half
push it to the truth; the network settles in between. The photometric loss still falls,
nothing errors.

Reported: "fix(monodepth): swap left/right images on horizontal flip" -
https://github.com/yandexdataschool/deep_vision_and_graphics/pull/24 (the course's
monodepth notebook flipped the left and right images horizontally without exchanging
them; the fix swaps the two views when they are flipped, as monodepth's own data loader
does, so that the flipped pair is again a left/right pair with positive disparity).
Here: 16x16 synthetic rectified pairs with smooth disparity 0.5-3 px whose left view also
carries a monocular brightness cue to its disparity (_depth_flow.stereo_pairs), a small
fully convolutional network on the left view, disparity = 4 * sigmoid, L1 photometric loss
of the right view warped by the predicted disparity, Adam, each pair flipped with
probability 0.5. Fix: a flipped pair becomes (flip(right), flip(left)).

Measured (800 steps; held-out disparity end-point error on 256 unflipped pairs, in pixels;
the mean disparity everywhere scores 0.42): seed 0, 0.77 for the bug against 0.20 for the
fixed twin; seeds shifted by 1000, 0.75 against 0.20 (the mean 0.41). The bug run is worse
than a constant map.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._depth_flow import (batches, conv_net, end_point_error,
                                              reconstruct_left, stereo_pairs)

TITLE = "fix(monodepth): swap left/right images on horizontal flip"
LINK = "https://github.com/yandexdataschool/deep_vision_and_graphics/pull/24"
EXPECTED = ("STEREO_FLIP_WITHOUT_VIEW_SWAP",)
STEPS = 800
MAX_DISPARITY = 4.0


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    left, right, _ = stereo_pairs(1024)
    test_left, _, test_disparity = stereo_pairs(256)
    model = conv_net(1, 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in batches(len(left), steps):
            lefts, rights = left[index].clone(), right[index].clone()
            flip = torch.rand(len(index)) < 0.5
            mirrored_left = lefts[flip].flip(-1)
            mirrored_right = rights[flip].flip(-1)
            if fixed:                          # the mirrored pair's views change sides
                lefts[flip], rights[flip] = mirrored_right, mirrored_left
            else:                              # BUG: flipped, but left stays left
                lefts[flip], rights[flip] = mirrored_left, mirrored_right
            disparity = MAX_DISPARITY * torch.sigmoid(model(lefts))
            loss = (reconstruct_left(rights, disparity) - lefts).abs().mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        pred = MAX_DISPARITY * torch.sigmoid(model(test_left))
    mon.held_out_disparity_epe = end_point_error(pred, test_disparity)
    mon.zero_flow_epe = end_point_error(test_disparity.mean().expand_as(test_disparity),
                                        test_disparity)
    return mon

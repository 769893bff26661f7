"""A steering policy cloned from a human's driving, trained on camera frames read with
OpenCV - which hands back the channels as blue, green, red - and driven by a script that
reads the simulator's frames with PIL, in red, green, blue. Every colour the network
learned (the yellow line on the left, the red kerb on the right, the grass) reaches it at
drive time with red and blue exchanged. Training itself is a flawless regression: the
loss, gradients and held-out error on frames read the training way are all those of a
healthy run; only the car on the track steers wrong.

Reported: "Term 1, Behavioral Cloning, BGR vs RGB color space reminder" -
https://github.com/udacity/sdc-issue-reports/issues/1229 (many students' behavioural
cloning projects failed not because the network was wrong but because the training
images were loaded in BGR with cv2 while drive.py feeds RGB images to the model; Udacity
added a note to the classroom and the project repository; the fix is converting once,
``cv2.cvtColor(image, cv2.COLOR_BGR2RGB)`` in the training pipeline, so both sides see the
same channel order). Here 8x16 frames of a road (benchmarks/real_bugs/_bc.py) whose
centre drifts with the car's offset and the bend, random lighting; steering = -0.1 offset
+ 0.8 bend; a small CNN, Adam 1e-3, batches of 64. Bug: trained on the channels reversed
(as cv2 gives them), driven on RGB. Fix: the training frames converted to RGB.

Measured (mean squared steering error on 1000 held-out frames as the drive script feeds
them; the steering angles' variance is about 0.13): seed 0: 0.036 with the bug against
0.0024 fixed; seeds shifted by 1000: 0.021 against 0.0031.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._bc import road_images, steering_net
from benchmarks.real_bugs._common import batches

TITLE = "Term 1, Behavioral Cloning, BGR vs RGB color space reminder"
LINK = "https://github.com/udacity/sdc-issue-reports/issues/1229"
EXPECTED = ("INPUT_CHANNEL_ORDER_DIFFERS_AT_INFERENCE",)
STEPS = 500


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    rgb, steering = road_images(4000, rng)
    held_rgb, held_steering = road_images(1000, rng)
    # what cv2.imread returns: the channels in B, G, R order
    frames = rgb if fixed else rgb.flip(1)      # fix: cv2.cvtColor(..., COLOR_BGR2RGB)
    net = steering_net()
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    with nd.watch(net, optimizer, **watch) as mon:
        for xb, yb in batches(frames, steering, steps, seed=0):
            loss = F.mse_loss(net(xb).squeeze(1), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():          # drive.py: PIL frames, always RGB
        mon.held_out_steering_mse = F.mse_loss(net(held_rgb).squeeze(1),
                                               held_steering).item()
    return mon

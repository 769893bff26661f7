"""A face-alignment network regresses five landmarks (normalised coordinates in [-1, 1]) and
trains with a 50% horizontal-flip augmentation that mirrors the image and every landmark's
x (x -> -x) but keeps the landmarks in their old order. After the flip the subject's right
eye sits where their left eye was, yet slot 0 still says "right eye": on half the batches
each symmetric pair is labelled the other way round, from images that look alike (a
mirrored frontal face is just another frontal face). The regression's best answer is the
average of the two, so both eyes and both mouth corners are pulled onto the face's
vertical midline. The loss falls and settles; nothing errors.

Reported: "Maybe a flip augmentation bug" -
https://github.com/ildoonet/tf-pose-estimation/issues/33 (the reporter adapted the pose
code to face alignment and found "some face images have wrong landmark localization, the
landmark's order is wrong": the image was flipped with cv2.flip and the labels with
(w - x, y), "so the landmark order is changing"; their fix remaps the 68 landmarks to
their mirror partners after the flip). Here: 20x20 synthetic frontal faces with the
five-point layout, a small CNN regressing the coordinates with MSE.
Fix: after flipping, reorder the landmarks by their mirror map (right eye <-> left eye,
right <-> left mouth corner).

Measured (400 Adam steps, batch 32, 2,000 training faces, 500 held-out faces, seed 0):
held-out error normalised by the inter-ocular distance (NME) 0.323 for the bug, 0.049 for
the fixed twin; the bug's predicted eyes are 0.6 pixels apart (the twin's 6.2, the true
mean 6.2).
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._keypoints import (FACE_MIRROR, CoordinateNet, faces,
                                             index_batches, to_pixels, to_unit)

TITLE = "Maybe a flip augmentation bug"
LINK = "https://github.com/ildoonet/tf-pose-estimation/issues/33"
EXPECTED = ("FLIPPED_KEYPOINTS_NOT_SWAPPED",)
STEPS = 400
BATCH = 32
TRAIN, HELD_OUT = 2000, 500
LR = 2e-3


def flip(images, landmarks, fixed):
    """Mirror the images and the landmarks' x (normalised coordinates)."""
    images = images.flip(-1)
    landmarks = landmarks * torch.tensor([-1.0, 1.0])
    if fixed:
        landmarks = landmarks[:, FACE_MIRROR]        # a mirrored right eye is a left eye
    return images, landmarks                          # BUG (fixed=False): order kept


def nme(model, images, landmarks):
    """Mean landmark error over the inter-ocular distance (both in pixels)."""
    with torch.no_grad():
        predicted = model(images)
    error = (predicted - landmarks).norm(dim=-1).mean(-1)
    ocular = (landmarks[:, 0] - landmarks[:, 1]).norm(dim=-1)
    return (error / ocular).mean().item()


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    images, points = faces(TRAIN + HELD_OUT, seed=0)
    targets = to_unit(points)
    model = CoordinateNet(5)
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(TRAIN, steps, BATCH, seed=0):
            xb, yb = images[index], targets[index]
            mirrored = torch.rand(len(xb)) < 0.5
            fx, fy = flip(xb[mirrored], yb[mirrored], fixed)
            xb, yb = xb.clone(), yb.clone()
            xb[mirrored], yb[mirrored] = fx, fy
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    mon.held_out_nme = nme(model, images[TRAIN:], targets[TRAIN:])
    with torch.no_grad():
        eyes = to_pixels(model(images[TRAIN:]))[:, :2]
    mon.held_out_eye_gap = (eyes[:, 0] - eyes[:, 1]).norm(dim=-1).mean().item()
    return mon

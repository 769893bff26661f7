"""A sequence-to-sequence human-motion forecaster (a GRU encoder over the observed poses, a
residual GRU-cell decoder that adds a predicted velocity to the previous pose) is trained
with its decoder fed the true previous pose (teacher forcing, the "supervised" training
mode) and TESTED the same way: the test call hands the decoder the ground-truth future
poses, one frame late, so every predicted frame starts from the true pose one frame
before it. The test error then measures one-frame-ahead prediction, not the 10-frame
forecast from the observed frames alone that the model is meant to make, and it reports
the model many times better than it is.

Reported: "Test time prediction inputs" -
https://github.com/una-dinosauria/human-motion-prediction/issues/18 ("at this line we are
feeding encoder_inputs, decoder_inputs, decoder_outputs to network to make the prediction
... decoder_inputs contains data o step behind the decoder_outputs. In this configuraion,
model just makes the forcasting one step ahead?"; a second user: "I think @Seleucia is
right that at testing time the decoder_input containing a large portion of ground-truth
data is used for prediction"). Here 2-D stick figures of 9 joints centred on the pelvis
(a walking cycle of random speed, stride and phase per sequence, with pose noise), 10
observed frames, 10 to forecast; the test error is logged every 25 steps.
Fix: at test time the decoder is rolled out on its own predictions (no ground truth
passed), as the sampling-based loop function does.

Measured (held-out test MSE as logged; the true 10-frame forecast error of both models is
the fixed twin's number): 0.00015 with the bug, 0.0026 fixed; seeds + 1000: 0.00014 vs
0.0028 - the logged error flatters the forecaster about 18 times.
"""
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd

TITLE = "Test time prediction inputs"
LINK = "https://github.com/una-dinosauria/human-motion-prediction/issues/18"
EXPECTED = ("VALIDATION_TEACHER_FORCED",)
STEPS = 150
OBSERVED, FUTURE = 10, 10
VALIDATE_EVERY = 25
# (joint, parent, rest angle, swing amplitude, swing phase offset) of a side-view walker
BONES = [(1, 0, 0.5 * np.pi, 0.05, 0.0),      # spine
         (2, 1, 0.5 * np.pi, 0.05, 0.0),      # head
         (3, 1, -0.5 * np.pi, 0.6, np.pi),    # left elbow (arms swing against the legs)
         (4, 3, -0.5 * np.pi, 0.4, np.pi),    # left hand
         (5, 1, -0.5 * np.pi, 0.6, 0.0),      # right elbow
         (6, 5, -0.5 * np.pi, 0.4, 0.0),      # right hand
         (7, 0, -0.5 * np.pi, 0.5, 0.0),      # left knee
         (8, 7, -0.5 * np.pi, 0.5, -0.6)]     # left foot
JOINTS = 9


def walks(n, rng):
    """(n, OBSERVED + FUTURE, JOINTS * 2) pelvis-centred poses."""
    frames = OBSERVED + FUTURE
    speed = rng.uniform(0.15, 0.35, (n, 1))
    stride = rng.uniform(0.6, 1.2, (n, 1))
    phase = rng.uniform(0, 2 * np.pi, (n, 1)) + speed * np.arange(frames)
    poses = np.zeros((n, frames, JOINTS, 2))
    for joint, parent, rest, swing, offset in BONES:
        angle = rest + stride * swing * np.sin(phase + offset)
        length = 0.5 if joint in (1, 7, 8) else 0.3
        poses[:, :, joint] = poses[:, :, parent] + length * np.stack(
            [np.cos(angle), np.sin(angle)], -1)
    poses += rng.normal(0, 0.005, poses.shape)
    return torch.tensor(poses.reshape(n, frames, JOINTS * 2), dtype=torch.float32)


class PoseSeq2Seq(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.encoder = nn.GRU(JOINTS * 2, dim, batch_first=True)
        self.cell = nn.GRUCell(JOINTS * 2, dim)
        self.head = nn.Linear(dim, JOINTS * 2)

    def forward(self, observed, teacher=None):
        """``teacher``: the true future poses, read one frame late, or None to feed the
        decoder its own predictions."""
        _, hidden = self.encoder(observed[:, :-1])
        hidden, last, out = hidden[0], observed[:, -1], []
        for step in range(FUTURE):
            hidden = self.cell(last, hidden)
            pose = last + self.head(hidden)              # residual: a velocity
            out.append(pose)
            last = teacher[:, step] if teacher is not None else pose
        return torch.stack(out, 1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    train, test = walks(2000, rng), walks(300, rng)
    model = PoseSeq2Seq()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    logged = float("nan")
    with nd.watch(model, optimizer, **watch) as mon:
        for done in range(1, steps + 1):
            clip = train[torch.from_numpy(rng.integers(0, len(train), 64))]
            optimizer.zero_grad()
            # "supervised" training: the decoder reads the true previous pose
            loss = F.mse_loss(model(clip[:, :OBSERVED], clip[:, OBSERVED:]),
                              clip[:, OBSERVED:])
            loss.backward()
            optimizer.step()
            val_loss = None
            if done % VALIDATE_EVERY == 0:
                model.eval()
                with torch.no_grad():
                    # BUG (not fixed): the test decoder is handed the ground truth as well
                    teacher = None if fixed else test[:, OBSERVED:]
                    val_loss = F.mse_loss(model(test[:, :OBSERVED], teacher),
                                          test[:, OBSERVED:])
                model.train()
                logged = val_loss.item()
            mon.step(loss, val_loss=val_loss)
    with torch.no_grad():
        mon.held_out_logged_mse = logged
        mon.held_out_forecast_mse = F.mse_loss(model(test[:, :OBSERVED]),
                                               test[:, OBSERVED:]).item()
    return mon

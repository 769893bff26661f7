"""A note-onset head of a polyphonic transcription model trained with plain binary
cross-entropy on the onset roll: onsets are about 1% of the (frame, pitch) cells, so the
loss is lowest near "no onset anywhere", the onset posteriorgram stays below 0.5 almost
everywhere and almost no onset is transcribed, while the loss looks fine.

Reported: "Can't reproduce paper" - https://github.com/spotify/basic-pitch/issues/142
(training Basic Pitch from scratch, the onset loss "plateau[s] at around ~0.4"; the paper
says "for Yo, there is a heavy class imbalance that drives models to output Yo = 0
everywhere. As a countermeasure, we use a class-balanced cross entropy loss, where the
weight for the negative class is 0.05 and the positive is 0.95"; the reporter had to fix the
repository's weighted_transcription_loss, "outputting the wrong dimension", to turn it on).
Here a 2-layer temporal Conv1d onset head over a synthetic piano-roll "spectrogram" (24
pitches, each lighting its bin and its octave's with a decaying energy, noise 0.15), Adam
1e-3, 300 steps of 16 clips of 64 frames. Fix: the class-balanced cross-entropy (weight
0.95 on onset cells, 0.05 on the others).

Measured harm (held-out frame-level onset F1 at 0.5, 128 clips): 0.00 vs 0.50; seeds +
1000: 0.00 vs 0.48.
"""
import numpy as np
import torch
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._music import OnsetNet, piano_roll_clips

TITLE = "Can't reproduce paper"
LINK = "https://github.com/spotify/basic-pitch/issues/142"
EXPECTED = ("RARE_POSITIVES_NEVER_PREDICTED",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, onsets = piano_roll_clips(1024, seed=0)
    rng = np.random.default_rng(5)
    model = OnsetNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            idx = torch.from_numpy(rng.integers(0, len(x), 16))
            logits, target = model(x[idx]), onsets[idx]
            if fixed:
                weight = 0.05 + 0.9 * target            # 0.95 on onsets, 0.05 elsewhere
                loss = F.binary_cross_entropy_with_logits(logits, target, weight=weight)
            else:
                loss = F.binary_cross_entropy_with_logits(logits, target)  # BUG: unweighted
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon

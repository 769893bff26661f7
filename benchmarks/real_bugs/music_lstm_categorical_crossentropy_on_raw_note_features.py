"""An LSTM that predicts the next note's four raw features - MIDI pitch, interval to the
previous note in semitones (negative going down), a downbeat flag and the duration in beats
- trained with categorical cross-entropy against the raw feature vector. The targets are no
distribution (69, -7, 1, 0.75): Keras' categorical_crossentropy divides the outputs by their
sum, clips them to [1e-7, 1 - 1e-7] and takes -sum(target * log): a negative interval
rewards a small share, a pitch near 70 a large one, the clipping cuts the gradients, and the
outputs say nothing of the next note (here the loss swings between 300 and 1100; the
question's went to -382).

Reported: data science Stack Exchange question 10529 (its title is not in the stored copy
read; it asks about a Keras/Theano LSTM generating music from music21 features) -
https://datascience.stackexchange.com/q/10529 (features "[[69, -7, 1, 0.75], [62, -1, 0,
0.25] ...]", the next time step's features as the target; "loss: 15.2986 ... loss:
-3.3534e+02 ... -3.8256e+02" and predictions like [0.118, -0.135, 0.086, -0.101]: "there is
something fundamentally wrong with my model and/or representation of the data"; the model
itself is on pastebin, not in the thread: a negative cross-entropy with "acc" needs targets
outside [0, 1], which these raw features are). Here an LSTM(32) over the last 8 notes of
synthetic melodies (standardised inputs), RMSprop 1e-3, 300 steps of 64, a linear output
(the question's predictions are small values of both signs), the loss written as Keras
computes categorical_crossentropy. Fix: mean squared error on the standardised features (a
regression; undo the scaling on the predictions).

Measured harm (held-out mean absolute error of the next note's pitch, in semitones, 2048
windows): 71.2 vs 4.9 (the pitch output's correlation with the true pitch: 0.01 vs 0.53);
seeds + 1000: 71.2 vs 4.8.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._music import melodies

TITLE = "datascience.stackexchange.com question 10529 (Keras LSTM music generation, negative loss)"
LINK = "https://datascience.stackexchange.com/q/10529"
EXPECTED = ("TARGETS_OUTSIDE_OUTPUT_RANGE", "LOSS_UNBOUNDED_BELOW")
STEPS = 300
CONTEXT = 8


def note_features(tokens):
    """(count, notes, 4) float32 raw features of melodies: pitch (MIDI), interval to the
    previous note, downbeat flag (every 4th note), duration in beats (tied to the pitch)."""
    pitch = (60 + tokens).float()
    interval = torch.cat([torch.zeros_like(pitch[:, :1]), pitch.diff(dim=1)], dim=1)
    downbeat = (torch.arange(tokens.shape[1]) % 4 == 0).float().expand_as(pitch)
    duration = 0.25 * (1 + tokens % 4).float()
    return torch.stack([pitch, interval, downbeat, duration], dim=-1)


def windows(count, seed):
    """(inputs (count, CONTEXT, 4), next-note targets (count, 4)), raw features."""
    feats = note_features(melodies(count, length=CONTEXT + 1, seed=seed))
    return feats[:, :-1], feats[:, -1]


class NoteLSTM(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 32, batch_first=True)
        self.out = nn.Linear(32, 4)

    def forward(self, x):
        h, _ = self.lstm(x)
        return self.out(h[:, -1])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = windows(8192, seed=0)
    mean, std = x.reshape(-1, 4).mean(0), x.reshape(-1, 4).std(0)
    x = (x - mean) / std
    if fixed:
        y = (y - mean) / std
    model = NoteLSTM()
    optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            idx = torch.randint(0, len(x), (64,))
            out = model(x[idx])
            if fixed:
                loss = nn.functional.mse_loss(out, y[idx])
            else:                           # BUG: Keras' categorical_crossentropy
                p = (out / out.sum(-1, keepdim=True)).clamp(1e-7, 1 - 1e-7)
                loss = -(y[idx] * p.log()).sum(-1).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.feature_mean, model.feature_std = mean, std
    return mon

"""TARGETS_IN_INPUTS for a forecast window that starts inside the input window.

A window forecaster reads steps 0..T-1 of its series, ``(B, T, F)`` (or ``(B, T)``), and
predicts the next H values of one of them, ``(B, H)`` - one output per target, from the whole
input window. Cut the windows one step (or m steps) too early and the first m targets are
the last m inputs: ``targets[:, :m] == inputs[:, T-m:, f]``. The model copies them and the
loss looks better than any real forecast (core variants 3: an input window 0..15 with its
target window from step 12).

The values alone do not tell the bug: a per-position model that emits its last H positions
with next-step targets has ``targets[:, :H-1] == inputs[:, T-H+1:]`` too, and is healthy as
long as output j does not read input T-m+j (it lies one step after it). So the model is
asked, exactly, with one backward pass: the gradient of output j with respect to input
position T-m+j of that series. A window forecaster reads it (the target is in its input);
a causal per-position model gives exactly zero there. Only float series are read (exact
equality of float values on every sample of the batch), and only an overlap that stops
short of both windows, 1 <= m < min(H, T): targets that are the whole input (an
autoencoder) or exactly its last H steps (a backcast) are other tasks.
"""
import numpy as np

from ...findings import Finding
from .measure import RELATIVE_TOLERANCE

MIN_SAMPLES = 8
"""[design] The overlap must hold exactly on at least 8 samples (every one of the batch)."""


def window_overlap(x, y):
    """(feature, m) with the largest m, 1 <= m < min(H, T), for which y[:, :m] ==
    x[:, T-m:, feature] on every sample (a float series window and a (B, H) float target
    window); None otherwise."""
    if x is None or y is None or x.dtype.kind != "f" or y.dtype.kind != "f":
        return None
    if y.ndim == 3 and y.shape[2] == 1:
        y = y[:, :, 0]
    if x.ndim == 2:
        x = x[:, :, None]
    if x.ndim != 3 or y.ndim != 2 or x.shape[0] != y.shape[0] or x.shape[0] < MIN_SAMPLES \
            or np.unique(y).size < 2:
        return None
    length, horizon = x.shape[1], y.shape[1]
    # m < H and m < T: the target window runs past the input window's end, so it is a
    # forecast begun early; targets that ARE the inputs (an autoencoder, m = T) or the last
    # H inputs (a backcast, m = H) are other tasks
    for m in range(min(length, horizon) - 1, 0, -1):
        tail = x[:, length - m:, :]
        for f in range(x.shape[2]):
            if np.array_equal(tail[:, :, f], y[:, :m]):
                return f, m
    return None


def probe_target_window(runner, batch, y, out, rng):
    """(findings, notes): does the output for target j read the input that holds it?"""
    if not batch.is_float:
        return [], []
    found = window_overlap(batch.x, y)
    if found is None or out is None or out.shape[0] < 1:
        return [], []
    feature, m = found
    length = batch.x.shape[1]
    width = int(np.prod(out.shape[1:])) if out.ndim > 1 else 1
    if width != y[0].size:
        return [], ["target window not checked: the output does not match the targets"]
    tree = batch.rows([0] * m)
    own, _ = runner.forward(tree, m, length)
    cotangent = np.zeros_like(own).reshape(m, -1)
    for j in range(m):
        cotangent[j, j] = rng.normal() or 1.0
    grad = np.abs(runner.input_gradient(tree, batch.primary, cotangent.reshape(own.shape)))
    grad = grad.reshape(m, length, -1)
    read = []
    for j in range(m):
        peak = grad[j].max()
        if peak > 0 and grad[j, length - m + j, feature] / peak > RELATIVE_TOLERANCE:
            read.append(j)
    if not read:
        return [], []
    return [Finding(
        "TARGETS_IN_INPUTS", "error", "",
        message=f"the first {m} of the {y.shape[1]} targets are the last {m} input steps of "
                f"series {feature} (targets[:, :{m}] == inputs[:, {length - m}:, {feature}] on "
                f"all {y.shape[0]} samples), and the model's output for each of them reads the "
                "input that holds it: the target window starts inside the input window, so "
                "those targets are copied, not forecast",
        evidence={"feature": feature, "overlap": m, "input_steps": length,
                  "horizon": int(y.shape[1]), "outputs_reading_their_target": read,
                  "meaning": "targets[:, j] == inputs[:, T - overlap + j, feature] and "
                             "d output[j] / d that input != 0"},
        fix=f"start the target window where the input window ends: inputs = "
            f"series[t:t + T], targets = series[t + T:t + T + H] (now it starts {m} step(s) "
            "early)")], []

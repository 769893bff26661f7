"""The test function of a spectrogram CNN never calls ``model.eval()``: test clips go
through the network in training mode, so dropout still drops half the dense units and
BatchNorm normalises every small test batch with that batch's own statistics instead of the
running ones. The reported test accuracy is lower and noisier than the model's.

Reported: "including model.eval() at test function" -
https://github.com/tyiannak/deep_audio_features/pull/28 (a merged fix to the test function of
deep_audio_features, whose CNNs classify mel spectrograms: the test loop ran the model
without switching it to evaluation mode). Here 6 synthetic classes of 20-band x 16-frame
log-mel spectrograms under 16 dB of per-bin noise (standardised), a CNN with BatchNorm after each convolution and dropout
0.5 before the output layer, Adam 1e-3, batch 32, validated every 50 steps in batches of 8.
Fix: ``model.eval()`` before the test loop (and ``model.train()`` after).
Measured (test accuracy on 1000 new clips, scored the way the script scores it, 300 steps):
0.86 vs 0.96; seeds + 1000: 0.90 vs 0.96.
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._audio_beginner import (SpectrogramCNN, power_mel, standardise,
                                                  to_db)

TITLE = "including model.eval() at test function"
LINK = "https://github.com/tyiannak/deep_audio_features/pull/28"
EXPECTED = ("VALIDATION_IN_TRAIN_MODE",)
STEPS = 300
BATCH = 32
TEST_BATCH = 8
VALIDATE_EVERY = 50
NOISE = 16.0            # dB of per-bin noise: noisy clips, so the test score is not trivially 1


def test(model, x, y, fixed):
    """Loss and accuracy over the test clips in batches of TEST_BATCH."""
    if fixed:
        model.eval()
    # BUG when not fixed: no model.eval(); dropout and batch statistics stay on
    losses, correct = [], 0
    with torch.no_grad():
        for start in range(0, len(x), TEST_BATCH):
            logits = model(x[start:start + TEST_BATCH])
            losses.append(F.cross_entropy(logits, y[start:start + TEST_BATCH]))
            correct += (logits.argmax(1) == y[start:start + TEST_BATCH]).sum().item()
    model.train()
    return torch.stack(losses).mean(), correct / len(x)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    power, y = power_mel(3000, seed=0, noise=NOISE)
    power_val, y_val = power_mel(400, seed=2, noise=NOISE)
    power_test, y_test = power_mel(1000, seed=1, noise=NOISE)
    x, x_val, x_test = standardise(to_db(power), to_db(power_val), to_db(power_test))
    x, x_val, x_test = x[:, None], x_val[:, None], x_test[:, None]
    model = SpectrogramCNN(batchnorm=True, dropout=0.5)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for done in range(1, steps + 1):
            rows = torch.randint(0, len(x), (BATCH,))
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x[rows]), y[rows])
            loss.backward()
            optimizer.step()
            val_loss = None
            if done % VALIDATE_EVERY == 0:
                val_loss, _ = test(model, x_val, y_val, fixed)
            mon.step(loss, val_loss=val_loss)
    _, mon.held_out_accuracy = test(model, x_test, y_test, fixed)
    mon.held_out_accuracy = round(mon.held_out_accuracy, 3)
    return mon

"""Music-genre clips sliced from whole songs, and the train/validation split made AFTER the
slicing, at random over slices: slices of the same song land on both sides. The network
learns to recognise the songs (each has its own timbre) as much as the genres, and the
validation accuracy measures that memory; on songs it has never heard it does far worse
than the validation score says.

Reported: "Train/Test split creation remark" - https://github.com/Hguimaraes/gtzan.keras/issues/10
("Shouldn't you split the files list in train + test before extracting the samples? You are
doing the opposite ... you can have some portions of song 1 into train split and some other
portions of song 1 into test split"; the author: "You are totally right, it is a known issue
of leaking. Using a correct split method the accuracy decrease ~10/15%"). Here 150 synthetic
"songs" of 6 genres, 8 mel-spectrogram slices each (20 bands x 16 frames, log-mel
standardised); a genre is a weak spectral envelope, a song adds its own stronger pattern; a
2-conv CNN, Adam 1e-3, batch 32, 20% validation scored every 50 steps.
Fix: split the list of songs first, then slice (validation songs unseen in training).
Measured (300 steps; validation accuracy / accuracy on 60 new songs): bug 0.90 / 0.38,
twin 0.48 / 0.30, so the bug run's validation overstates by 0.52 (twin 0.18); seeds + 1000:
bug 0.95 / 0.47, twin 0.54 / 0.46, overstatement 0.48 vs 0.08.
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._audio_beginner import (SpectrogramCNN, accuracy, power_mel,
                                                  standardise, to_db)

TITLE = "Train/Test split creation remark"
LINK = "https://github.com/Hguimaraes/gtzan.keras/issues/10"
EXPECTED = ("VALIDATION_WINDOWS_OVERLAP_TRAINING", "VALIDATION_ROWS_IN_TRAINING")
STEPS = 300
BATCH = 32
SONGS, SLICES = 150, 8
VALIDATE_EVERY = 50


def song_slices(songs, seed):
    ids = np.repeat(np.arange(songs), SLICES)
    power, y = power_mel(len(ids), seed=seed, songs=ids, song_strength=6.0, class_scale=0.6)
    return to_db(power), y, ids


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x_all, y_all, ids = song_slices(SONGS, seed=0)
    x_new, y_new, _ = song_slices(60, seed=1)
    if fixed:
        val_songs = rng.permutation(SONGS)[:SONGS // 5]
        is_val = np.isin(ids, val_songs)
    else:
        # BUG: the slices are shuffled and split, whatever song they come from
        is_val = np.zeros(len(ids), dtype=bool)
        is_val[rng.permutation(len(ids))[:len(ids) // 5]] = True
    is_val = torch.from_numpy(is_val)
    x, x_val, x_new = standardise(x_all[~is_val], x_all[is_val], x_new)
    x, x_val, x_new = x[:, None], x_val[:, None], x_new[:, None]
    y, y_val = y_all[~is_val], y_all[is_val]
    model = SpectrogramCNN()
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
                model.eval()
                with torch.no_grad():
                    val_loss = F.cross_entropy(model(x_val), y_val)
                model.train()
            mon.step(loss, val_loss=val_loss)
    mon.validation_accuracy = accuracy(model, x_val, y_val)
    mon.held_out_accuracy = accuracy(model, x_new, y_new)
    mon.overstatement = round(mon.validation_accuracy - mon.held_out_accuracy, 3)
    return mon

"""Sleep stages scored in the Rechtschaffen-Kales scheme (0 wake, 1-4 the NREM stages, 5
REM) collapsed to five classes with ``stages[stages > 4] = 4`` "to make REM label 4": REM
joins stage 4 in class 4 while stage 3 keeps class 3 alone, where the five-class scheme
merges stages 3 and 4 into N3 (class 3) and gives REM class 4. The network is now taught
that class 4 is both the deepest slow-wave sleep and REM, and that stage 3 slow-wave sleep
is a different class from stage 4; read with the intended scheme (class 4 = REM), every
stage-4 epoch it recognises is scored as REM. The labels are valid class ids, the loss
falls, nothing errors.

Reported: "potential error in dataset_builder_loader/align_actigraphy_rri.py" -
https://github.com/bzhai/multimodal_sleep_stage_benchmark/issues/2 (the loader set every
stage above 4 to 4, "make sure rem sleep label is 4", so stage 4 and REM (5) shared a
class, while the MESA documentation codes 3 or 4 as stage 3/4 and 5 as REM: stages 3 and 4
should be combined to N3 and REM kept apart). Here: synthetic 2-channel epochs (an EEG
derivation and a chin-EMG-like channel, 64 samples), six R-K stages with stage-typical
band powers (alpha in wake, theta in N1 and REM, spindles in N2, slow waves in stages 3
and 4 - stronger in 4 - and muscle tone high in wake, absent in REM), a small temporal
ConvNet, Adam. Fix: map stages 3 and 4 to class 3 and REM to class 4.

Measured (held-out accuracy over 1,200 epochs against the five AASM classes, and the recall
of N3): seed 0, accuracy 0.87 for the bug against 0.98 for the fixed twin (N3 recall 0.48
against 1.00); seeds shifted by 1000, 0.83 against 0.98 (N3 recall 0.15 against 0.98).
"""
import numpy as np
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._biosignals import ConvNet, accuracy, oscillations
from benchmarks.real_bugs._common import index_batches

TITLE = "potential error in dataset_builder_loader/align_actigraphy_rri.py"
LINK = "https://github.com/bzhai/multimodal_sleep_stage_benchmark/issues/2"
EXPECTED = ("LABEL_MAP_MERGES_DISTINCT_CLASSES",)
STEPS = 400
RATE, SAMPLES = 64, 64
BANDS = (2, 6, 10, 13, 28)            # Hz: slow waves, theta, alpha, spindles, muscle
# per R-K stage: EEG band amplitudes, then the EMG channel's muscle amplitude
PROFILE = {0: ([0.2, 0.4, 1.2, 0.1], 1.5),     # wake: alpha, high tone
           1: ([0.4, 1.0, 0.4, 0.1], 0.8),     # N1: theta
           2: ([0.6, 0.5, 0.2, 1.0], 0.6),     # N2: spindles
           3: ([1.4, 0.3, 0.1, 0.3], 0.5),     # stage 3: slow waves
           4: ([2.0, 0.2, 0.1, 0.2], 0.5),     # stage 4: more slow waves
           5: ([0.4, 1.0, 0.3, 0.1], 0.05)}    # REM: theta, atonia
MIX = [0.12, 0.08, 0.40, 0.09, 0.11, 0.20]     # share of each R-K stage in a night
AASM = np.array([0, 1, 2, 3, 3, 4])            # the intended five classes


def epochs(count, rng):
    stages = rng.choice(6, count, p=MIX)
    amplitudes = np.zeros((count, 2, len(BANDS)))
    for stage, (eeg, emg) in PROFILE.items():
        rows = stages == stage
        amplitudes[rows, 0, :4] = eeg
        amplitudes[rows, 1, 4] = emg
    amplitudes *= rng.uniform(0.8, 1.25, (count, 1, 1))          # subject/night gain
    x = oscillations(amplitudes, BANDS, SAMPLES, RATE, rng, noise=0.8)
    return torch.from_numpy(x), stages


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, stages = epochs(2400, rng)
    if fixed:
        labels = AASM[stages]                   # 3 and 4 -> N3, REM -> 4
    else:
        labels = stages.copy()
        labels[labels > 4] = 4                  # BUG: REM joins stage 4; stage 3 alone
    y = torch.from_numpy(labels)
    x_held, held_stages = epochs(1200, rng)
    y_held = torch.from_numpy(AASM[held_stages])
    model = ConvNet(2, 5)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(len(x), steps, 64, seed=0):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x[index]), y[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_held, y_held)
    deep = y_held == 3
    mon.held_out_n3_recall = accuracy(model, x_held[deep], y_held[deep])
    return mon

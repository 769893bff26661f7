"""A CTC recogniser whose frame scores go through ``F.log_softmax(scores)`` with no ``dim``
before ``nn.CTCLoss``. For a 3-D tensor torch's implicit choice is dim 0, which for CTC's
time-major (T, B, C) layout is the TIME axis: each class's scores are normalised across the
frames, not each frame's across the classes. CTC still gets finite numbers, the loss falls,
only a deprecation warning is printed (once); but the "log-probabilities" of a frame no longer
compete with each other, so the best path the recogniser learns spells the lines badly.

Reported: "using CTC loss instead of Cross Entropy loss:" -
https://github.com/bentrevett/pytorch-seq2seq/issues/177 (the reporter's CTC version of the
tutorial's loop takes the (trg len, batch, output dim) output through ``F.log_softmax(output)``
with no dimension before ``nn.CTCLoss`` and asks why it does not train like the cross-entropy
version; the implicit dimension of a 3-D tensor is 0, the time axis. Fix: normalise over the
class axis, ``log_softmax(dim=2)``). Here a bidirectional GRU reads three 8x8 digits side by
side, column by column (24 frames of 8 pixels), and CTC trains it to spell the three labels
(blank = 0); held-out lines are built from digits the training never shows and decoded
greedily from what the pipeline feeds CTC.

**Measured** (200 steps): held-out line accuracy 0.00 for the bug against 0.75 for the fixed
twin at seed 0; 0.00 against 0.76 with every seed shifted by 1000.
"""
import warnings

import torch
import torch.nn.functional as F
from torch import nn

from benchmarks.real_bugs._ctc176 import (FrameRecogniser, digits, greedy_decode,
                                          held_out_lines, line_accuracy, training_lines)

TITLE = "using CTC loss instead of Cross Entropy loss:"
LINK = "https://github.com/bentrevett/pytorch-seq2seq/issues/177"
EXPECTED = ("LOG_PROBS_NORMALISED_OVER_BATCH", "CTC_NOT_LOG_PROBABILITIES")
STEPS = 200


def to_log_probs(scores, fixed):
    if fixed:
        return F.log_softmax(scores, dim=2)
    # BUG (fixed=False): no dim; for a 3-D (T, B, C) tensor torch picks dim 0, the time axis
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return F.log_softmax(scores)


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    train_x, train_y, test_x, test_y = digits()
    model = FrameRecogniser()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    ctc = nn.CTCLoss(blank=0)
    with nd.watch(model, optimizer, **watch) as mon:
        for frames, frame_lengths, targets, target_lengths in training_lines(
                train_x, train_y, steps):
            optimizer.zero_grad()
            log_probs = to_log_probs(model(frames), fixed)
            loss = ctc(log_probs, targets, frame_lengths, target_lengths)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    frames, frame_lengths, targets, target_lengths = held_out_lines(test_x, test_y)
    with torch.no_grad():
        decoded = greedy_decode(to_log_probs(model(frames), fixed), frame_lengths)
    mon.held_out_line_accuracy = line_accuracy(decoded, targets, target_lengths)
    return mon

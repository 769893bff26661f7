"""Variable-length CTC transcripts padded to a fixed length with an extra "padding" symbol, and
the label length taken from the padded text: the padding becomes part of every target.
CTC then has to teach the recogniser to spell the padding too (two pad symbols in a row
need a blank between them), in the silence after short lines, where nothing in the input
says how many are owed; the loss falls and nothing warns, but the recogniser spends its
capacity on counting padding and its greedy transcripts (padding stripped) are worse.

Reported: "variable-length plate" - https://github.com/qjadud1994/CRNN-Keras/issues/6 (a
plate recogniser whose generator fills ``label_length`` with ``len(text)``; for plates shorter
than the nine characters the maintainer advises padding the text with a character such as a
space or '*', which "should not affect the prediction"; with ``len(text)`` taken after the
padding the pad characters are targets. Fix: pad the label array but keep each label length
the real length, so CTC never reads the padding). Here a bidirectional GRU reads lines of
one to three 8x8 digits (8 frames of 8 pixels each, zero frames after short lines, 24
frames), labels padded to three with symbol 11 (blank = 0); held-out lines come from digits
the training never shows, decoded greedily with the padding symbol stripped.

**Measured** (400 steps): held-out line accuracy 0.84 for the bug against 0.91 for the fixed
twin at seed 0; 0.81 against 0.89 with every seed shifted by 1000 (at 200 steps 0.40
against 0.82 and 0.64 against 0.70: the padding slows learning and leaves a lasting gap).
"""
import torch
from torch import nn

from benchmarks.real_bugs._ctc176 import (FrameRecogniser, digits, greedy_decode,
                                          held_out_lines, line_accuracy, training_lines)

TITLE = "variable-length plate"
LINK = "https://github.com/qjadud1994/CRNN-Keras/issues/6"
EXPECTED = ("CTC_TARGET_PADDING_COUNTED",)
STEPS = 400
MAX_DIGITS = 3
PAD = 11


def pad_with_symbol(targets, target_lengths):
    """The labels with every slot after a line's digits set to the padding symbol."""
    slots = torch.arange(targets.shape[1])
    return torch.where(slots < target_lengths[:, None], targets, torch.full_like(targets, PAD))


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    train_x, train_y, test_x, test_y = digits()
    model = FrameRecogniser(labels=12)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    ctc = nn.CTCLoss(blank=0)
    with nd.watch(model, optimizer, **watch) as mon:
        for frames, frame_lengths, targets, target_lengths in training_lines(
                train_x, train_y, steps, min_digits=1, max_digits=MAX_DIGITS):
            optimizer.zero_grad()
            labels = pad_with_symbol(targets, target_lengths)
            # BUG (fixed=False): the label length is the padded text's length
            label_lengths = target_lengths if fixed else torch.full_like(target_lengths,
                                                                         MAX_DIGITS)
            loss = ctc(model(frames).log_softmax(dim=2), labels, frame_lengths, label_lengths)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    frames, frame_lengths, targets, target_lengths = held_out_lines(
        test_x, test_y, min_digits=1, max_digits=MAX_DIGITS)
    with torch.no_grad():
        decoded = greedy_decode(model(frames), frame_lengths)
    decoded = [[label for label in line if label != PAD] for line in decoded]
    mon.held_out_line_accuracy = line_accuracy(decoded, targets, target_lengths)
    return mon

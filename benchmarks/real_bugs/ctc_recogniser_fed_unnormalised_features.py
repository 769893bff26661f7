"""A bidirectional-recurrent CTC recogniser fed its frames unnormalised: the features keep
their raw scale (here the digits' raw 0..16 ink counts, as filterbank energies keep theirs),
so the GRU's gates start saturated and the recogniser sits for a long time in CTC's
all-blank plateau; the loss falls (emitting only blanks is already a lower loss), nothing
crashes, and the transcripts it learns in the same budget are far worse.

Reported: "speech recognition" - https://github.com/rakeshvar/rnn_ctc/issues/5 (a
bidirectional-LSTM CTC network on a spoken-digit corpus "only silence is fired always",
while the same code learned handwritten digits; after normalising the speech features "it
is working fine". Fix: standardise each feature with the training set's mean and standard
deviation). Here a bidirectional GRU reads three 8x8 digits side by side, column by column
(24 frames of 8 pixels), and CTC (blank = 0) trains it to spell the three labels; held-out
lines come from digits the training never shows, decoded greedily.

**Measured** (200 steps): held-out line accuracy 0.63 for the bug against 0.92 for the fixed
twin at seed 0; 0.81 against 0.88 with every seed shifted by 1000.
"""
import torch
from torch import nn

from benchmarks.real_bugs._ctc176 import (FrameRecogniser, digits, greedy_decode,
                                          held_out_lines, line_accuracy, training_lines)

TITLE = "speech recognition"
LINK = "https://github.com/rakeshvar/rnn_ctc/issues/5"
EXPECTED = ("UNNORMALIZED_INPUTS", "NOT_NORMALIZED")
STEPS = 200
RAW_SCALE = 16.0          # the digits' pixels are ink counts 0..16 before _common scales them


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    train_x, train_y, test_x, test_y = digits()
    train_x, test_x = train_x * RAW_SCALE, test_x * RAW_SCALE          # raw features
    columns = train_x.transpose(1, 2).reshape(-1, 8)                   # one row per frame
    mean, std = columns.mean(dim=0), columns.std(dim=0) + 1e-6

    def features(frames):
        # BUG (fixed=False): the frames go in at their raw scale
        return (frames - mean) / std if fixed else frames

    model = FrameRecogniser()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    ctc = nn.CTCLoss(blank=0)
    with nd.watch(model, optimizer, **watch) as mon:
        for frames, frame_lengths, targets, target_lengths in training_lines(
                train_x, train_y, steps):
            optimizer.zero_grad()
            loss = ctc(model(features(frames)).log_softmax(dim=2), targets, frame_lengths,
                       target_lengths)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    frames, frame_lengths, targets, target_lengths = held_out_lines(test_x, test_y)
    with torch.no_grad():
        decoded = greedy_decode(model(features(frames)), frame_lengths)
    mon.held_out_line_accuracy = line_accuracy(decoded, targets, target_lengths)
    return mon

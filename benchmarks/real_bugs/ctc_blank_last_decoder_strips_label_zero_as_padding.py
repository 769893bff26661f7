"""A CTC recogniser trained with the blank at the LAST index (so the character "0" keeps
label 0), whose transcription step then strips every 0 from the decoder's zero-padded
output as if it were padding: the network learns to emit "0" perfectly well, but every "0"
it reads is deleted from the transcripts, so no line containing a zero is ever transcribed
correctly. Training itself is healthy; the harm is all in how the outputs are read.

Reported: "Net can't predict 0" - https://github.com/raidastauras/tf2-crnn/issues/1 ("you
make blank_index equals the 62 (last char), but when you decode, you ignore the 0, so the
net can't predict the label '0' ... because the zero-padding the output of
ctc_greedy_decoder will be [48 17 18 21 22 0 0 0 0 0]"; the author: "an index of 0 means
two things at that point: either '0' char or zero-pad", fixed by trimming only the
trailing padding). Here a CRNN (a convolution spanning the line height, one 24-channel
vector per image column, a bidirectional GRU, a linear read-out per column) reads lines of
three 8x8 digits, CTC with blank = 10 and the digits as labels 0..9; held-out lines are
made of digits the training never shows, decoded greedily into a zero-padded array and
turned into transcripts. Fix: cut each decoded row at its decoded length (trim the padding)
instead of dropping every 0.

**Measured** (250 steps): held-out line accuracy 0.37 for the bug against 0.52 for the
fixed twin at seed 0; seeds + 1000: 0.45 vs 0.64.
"""
import torch
from torch import nn

from benchmarks.real_bugs._ocr import (CRNN, digits, frames_to_images, greedy_decode,
                                       held_out_lines, line_accuracy, training_lines)

TITLE = "Net can't predict 0"
LINK = "https://github.com/raidastauras/tf2-crnn/issues/1"
EXPECTED = ("RARE_CLASS_NEVER_PREDICTED",)
STEPS = 250
LR = 1e-2
BLANK = 10                 # the last of 11 outputs; the digits keep labels 0..9


def dense_greedy(scores, lengths):
    """Greedy CTC decoding as a zero-padded (B, T) array plus the decoded lengths."""
    rows = greedy_decode(scores, lengths, blank=BLANK)
    dense = torch.zeros(len(rows), scores.shape[0], dtype=torch.long)
    for i, row in enumerate(rows):
        dense[i, :len(row)] = torch.tensor(row, dtype=torch.long)
    return dense, torch.tensor([len(r) for r in rows])


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    train_x, train_y, test_x, test_y = digits()
    model = CRNN(channels=24, width=24, labels=11)
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    ctc = nn.CTCLoss(blank=BLANK)
    with nd.watch(model, optimizer, **watch) as mon:
        for frames, frame_lengths, targets, target_lengths in training_lines(
                train_x, train_y, steps):
            targets = targets - 1                       # digits as labels 0..9
            optimizer.zero_grad()
            scores = model(frames_to_images(frames))
            loss = ctc(scores.log_softmax(dim=2), targets, frame_lengths, target_lengths)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    frames, frame_lengths, targets, target_lengths = held_out_lines(test_x, test_y)
    targets = targets - 1
    model.eval()
    with torch.no_grad():
        dense, decoded_lengths = dense_greedy(model(frames_to_images(frames)), frame_lengths)
    if fixed:
        decoded = [row[:n] for row, n in zip(dense.tolist(), decoded_lengths.tolist())]
    else:
        decoded = [[j for j in row if j != 0] for row in dense.tolist()]   # BUG: drops "0"s
    mon.held_out_line_accuracy = line_accuracy(decoded, targets, target_lengths)
    return mon

"""A CRNN text recogniser trained with RMSprop at a learning rate ten times too large (the
training script's default): the steps are far too large for the recurrent read-out, the network falls into
CTC's all-blank solution (emitting only blanks is a cheap first minimum of the loss) and
does not climb out of it; the loss stays high and the greedy transcripts are (nearly) empty.
Nothing crashes and no value is invalid.

Reported: "why my accuracy is always 0?" - https://github.com/meijieru/crnn.pytorch/issues/92
(after argmax "almost all indexs of labels are 0, which means i get a 'blank' label"; a
commenter: "I think your learning rate is too large. By default the learning rate is 0.01
so you should change that value into smaller value ... it set lr to 0.001 and after 6 epoch
it converge"). Here a CRNN (a convolution spanning the line height, one 24-channel vector
per image column, a bidirectional GRU, a linear read-out per column, CTC with blank = 0)
reads lines of three 8x8 digits; held-out lines are made of digits the training never
shows and decoded greedily. This small recogniser tolerates larger steps than the reported
VGG-style CRNN, so the scaled-down pair keeps the report's factor of ten one decade higher:
the bug trains at lr = 0.1, the fix at lr = 0.01 (at 0.001 this model is still far from
converged after 300 steps). Fix: a learning rate ten times smaller.

**Measured** (300 steps): held-out line accuracy 0.00 for the bug against 0.51 for the
fixed twin at seed 0; seeds + 1000: 0.00 vs 0.50.
"""
import torch
from torch import nn

from benchmarks.real_bugs._ocr import (CRNN, digits, frames_to_images, greedy_decode,
                                       held_out_lines, line_accuracy, training_lines)

TITLE = "why my accuracy is always 0?"
LINK = "https://github.com/meijieru/crnn.pytorch/issues/92"
EXPECTED = ("LR_TOO_HIGH",)
STEPS = 300
DEFAULT_LR = 0.1         # ten times the rate this model trains well at (the report: 0.01 vs 0.001)
GOOD_LR = 0.01


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    train_x, train_y, test_x, test_y = digits()
    model = CRNN(channels=24, width=24)
    lr = GOOD_LR if fixed else DEFAULT_LR        # BUG (fixed=False): a rate ten times too large
    optimizer = torch.optim.RMSprop(model.parameters(), lr=lr)
    ctc = nn.CTCLoss(blank=0)
    with nd.watch(model, optimizer, **watch) as mon:
        for frames, frame_lengths, targets, target_lengths in training_lines(
                train_x, train_y, steps):
            optimizer.zero_grad()
            scores = model(frames_to_images(frames))
            loss = ctc(scores.log_softmax(dim=2), targets, frame_lengths, target_lengths)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    frames, frame_lengths, targets, target_lengths = held_out_lines(test_x, test_y)
    model.eval()
    with torch.no_grad():
        decoded = greedy_decode(model(frames_to_images(frames)), frame_lengths)
    mon.held_out_line_accuracy = line_accuracy(decoded, targets, target_lengths)
    return mon

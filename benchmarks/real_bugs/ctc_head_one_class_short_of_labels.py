"""A CTC recogniser whose output layer has one class too few: the labels run 1..10 (0 is
the blank), so the scores need 11 classes, but the head was sized from the largest label
(10 outputs). torch's CPU CTC does not check the label ids against the class axis: every
target 10 reads a log-probability beyond the row (the next row's memory), so the lines
holding that label are scored against numbers the model never meant for it, and no error
is raised.

Reported: "Best practices to solve NaN CTC loss" -
https://discuss.pytorch.org/t/best-practices-to-solve-nan-ctc-loss/151913 (point 1,
"Mismatch between model's number of classes and class_ids in labels": "seeing the largest
class in our label_list is C, we mistakenly set the model's number of classes also to C.
Instead, it should be C + 1, because class 0 is usually reserved for BLANK ... Whenever the
CTC loss encounters a label tensor that has 100 in it, and model predictions of shape
(T, B, 100), it would silently go bonkers, as it actually needs (T, B, 101)"). Here a
GRU reads three 8x8 digits side by side, column by column, as in
``ctc_loss_on_raw_logits``, and CTC trains it to spell the three labels (digit + 1).

Measured (200 steps, 32 fresh lines, greedy decoding): the loss goes NaN (the reads past
the last row) and no line is read (0.00); fixed, 0.91 of the lines read exactly.
Fix: one output per label plus the blank, ``nn.Linear(2 * hidden, labels + 1)`` (11).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import classification
from benchmarks.real_bugs.ctc_loss_on_raw_logits import DIGITS_PER_LINE, FrameRecogniser, lines

TITLE = "Best practices to solve NaN CTC loss"
LINK = "https://discuss.pytorch.org/t/best-practices-to-solve-nan-ctc-loss/151913"
EXPECTED = ("CTC_LABEL_BEYOND_CLASSES",)
STEPS = 200
LARGEST_LABEL = 10          # digits 0..9 shifted by one; 0 is the blank


def lines_read(scores, labels):
    """Share of lines whose greedy CTC decoding (best class per frame, repeats merged,
    blanks dropped) is exactly the line's labels."""
    best = scores.argmax(dim=2).T
    right = 0
    for row, want in zip(best.tolist(), labels.tolist()):
        read = [i for k, i in enumerate(row) if i != 0 and (k == 0 or i != row[k - 1])]
        right += read == want
    return right / len(labels)


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    x, y = classification()
    # BUG (fixed=False): the head is sized from the largest label, one class short
    classes = LARGEST_LABEL + 1 if fixed else LARGEST_LABEL
    model = FrameRecogniser(labels=classes)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    ctc = nn.CTCLoss(blank=0)
    with nd.watch(model, optimizer, **watch) as mon:
        for frames, labels in lines(x, y, steps):
            optimizer.zero_grad()
            scores = model(frames).log_softmax(dim=2)
            lengths = torch.full((len(labels),), frames.shape[0], dtype=torch.long)
            targets = torch.full((len(labels),), DIGITS_PER_LINE, dtype=torch.long)
            loss = ctc(scores, labels, lengths, targets)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        frames, labels = next(lines(x, y, 1, seed=1))
        mon.lines_read = lines_read(model(frames), labels)
    return mon

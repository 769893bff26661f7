"""A CTC recogniser whose label ids start at 0 while ``nn.CTCLoss`` keeps its default
``blank=0``: the digit 0 and the blank are the same output. CTC reads every path through
the blank as "no label here", so a target 0 asks the model for the very symbol the loss
drops between labels; lines holding a 0 cannot be spelt, and what the model learns for
them pulls the blank around. The fixed twin shifts the labels by one (1..10, blank 0) and
reads most lines exactly.

Reported: "pytorch warp CTC issue" - https://github.com/espnet/espnet/issues/700
(labelled Bug; the builtin and warp CTC losses disagreed on a test batch, and the
answer was that its targets used label 0: "Label `0` of `np_target` cannot be used,
because label `0` means blank. Blank label is only used in calculation of CTC loss.").
Here a GRU reads three 8x8 digits side by side, column by column (24 frames of 8
pixels), as in ``ctc_loss_on_raw_logits``, and CTC trains it to spell the three digits.
Fix: labels + 1, so that no target is the blank.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import classification
from benchmarks.real_bugs.ctc_loss_on_raw_logits import DIGITS_PER_LINE, FrameRecogniser, lines

TITLE = "pytorch warp CTC issue"
LINK = "https://github.com/espnet/espnet/issues/700"
EXPECTED = ("CTC_TARGET_IS_BLANK",)
STEPS = 200
BLANK = 0


def greedy_lines_read(scores, labels):
    """Share of lines whose greedy CTC decoding (best id per frame, repeats merged, blanks
    dropped) is exactly the line's labels."""
    best = scores.argmax(dim=2).T                          # (B, T)
    right = 0
    for row, want in zip(best.tolist(), labels.tolist()):
        read = [i for k, i in enumerate(row) if i != BLANK and (k == 0 or i != row[k - 1])]
        right += read == want
    return right / len(labels)


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    x, y = classification()
    model = FrameRecogniser()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    ctc = nn.CTCLoss(blank=BLANK)
    with nd.watch(model, optimizer, **watch) as mon:
        for frames, shifted in lines(x, y, steps):
            # BUG (fixed=False): the digits' own ids 0..9 are the targets, 0 being the blank
            labels = shifted if fixed else shifted - 1
            optimizer.zero_grad()
            scores = model(frames).log_softmax(dim=2)
            lengths = torch.full((len(labels),), frames.shape[0], dtype=torch.long)
            targets = torch.full((len(labels),), DIGITS_PER_LINE, dtype=torch.long)
            loss = ctc(scores, labels, lengths, targets)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        frames, shifted = next(lines(x, y, 1, seed=1))
        labels = shifted if fixed else shifted - 1
        mon.lines_read = greedy_lines_read(model(frames), labels)
    return mon

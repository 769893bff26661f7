"""A CTC recogniser whose convolutional front end strides too far along time: it makes one
output frame per 12 input columns, so a line of k digits (8 columns each) gets about 2k/3
frames, fewer than its k labels. Such a line has no alignment at all - CTC's loss for it is
infinite - and ``nn.CTCLoss(zero_infinity=True)``, set to keep the run from blowing up,
turns each of those losses (and its gradient) into 0. The batch loss is an average over
mostly zeros: it starts small and falls towards 0 while the model learns to read only the
one-digit lines.

Reported: "loss (Loss 0.00000) for all along the training" -
https://github.com/SeanNaren/deepspeech.pytorch/issues/681 (deepspeech.pytorch's CTC
criterion zeroes infinite losses; "THE LOSS is equal to zero after some iterations", and
the answer: "make sure that the output length <= the input length", i.e. that the model
makes at least as many frames as the transcript has labels). Here a strided Conv1d and a
GRU read lines of 1-4 digits written side by side (padded to 32 columns); the fixed twin
strides 4 columns (two frames per digit).

Measured (200 steps, 256 fresh lines, greedy decoding): 0.38 of the lines read exactly with
the bug (about the one-digit lines and the lucky two-digit ones), 0.93 fixed.
Fix: a shorter stride (4), so that every line has at least as many frames as labels (and
``zero_infinity`` only as a guard against the odd bad sample, with the share of zeroed
lines logged).
"""
import numpy as np
import torch
from torch import nn

from benchmarks.real_bugs._common import classification

TITLE = "loss (Loss 0.00000) for all along the training"
LINK = "https://github.com/SeanNaren/deepspeech.pytorch/issues/681"
EXPECTED = ("CTC_ALIGNMENTS_IMPOSSIBLE",)
STEPS = 200
MAX_DIGITS = 4
COLUMNS = 8 * MAX_DIGITS
BATCH_SIZE = 32


class StridedRecogniser(nn.Module):
    def __init__(self, stride, hidden=64, labels=11):
        super().__init__()
        self.stride = stride
        self.front = nn.Conv1d(8, hidden, kernel_size=stride, stride=stride)
        self.rnn = nn.GRU(hidden, hidden, bidirectional=True)
        self.out = nn.Linear(2 * hidden, labels)

    def forward(self, columns):                       # (batch, 8, columns)
        frames = torch.relu(self.front(columns)).permute(2, 0, 1)   # (time, batch, hidden)
        return self.out(self.rnn(frames)[0])          # (time, batch, labels)

    def frames_for(self, digits):
        """Frames that hold a line of ``digits`` digits (what the front end makes of its
        8 * digits columns, at least one, at most what the padded line gives)."""
        whole = (COLUMNS - self.stride) // self.stride + 1
        return torch.clamp(torch.ceil(8 * digits / self.stride).long(), 1, whole)


def digit_lines(x, y, steps, seed=0):
    """Lines of 1..4 digits side by side, zero-padded to 32 columns: (B, 8, 32) columns,
    (B, 4) labels (digit + 1, padded with 0) and (B,) label counts."""
    rng = np.random.default_rng(seed)
    images = x.reshape(-1, 8, 8)
    for _ in range(steps):
        count = torch.from_numpy(rng.integers(1, MAX_DIGITS + 1, BATCH_SIZE))
        pick = torch.from_numpy(rng.integers(0, len(x), (BATCH_SIZE, MAX_DIGITS)))
        keep = torch.arange(MAX_DIGITS)[None, :] < count[:, None]
        line = torch.cat([images[pick[:, k]] * keep[:, k, None, None]
                          for k in range(MAX_DIGITS)], dim=2)
        yield line, (y[pick] + 1) * keep, count


def lines_read(scores, lengths, labels, counts):
    best = scores.argmax(dim=2).T
    right = 0
    for row, n, want, k in zip(best.tolist(), lengths.tolist(), labels.tolist(),
                               counts.tolist()):
        row = row[:n]
        read = [i for j, i in enumerate(row) if i != 0 and (j == 0 or i != row[j - 1])]
        right += read == want[:k]
    return right / len(labels)


def run(fixed=False, steps=STEPS, **watch):
    import nndebug as nd
    torch.manual_seed(0)
    x, y = classification()
    # BUG (fixed=False): a stride of 12 columns leaves most lines fewer frames than labels
    model = StridedRecogniser(stride=4 if fixed else 12)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    ctc = nn.CTCLoss(blank=0, zero_infinity=True)    # hides the impossible lines
    with nd.watch(model, optimizer, **watch) as mon:
        for columns, labels, counts in digit_lines(x, y, steps):
            optimizer.zero_grad()
            scores = model(columns).log_softmax(dim=2)
            loss = ctc(scores, labels, model.frames_for(counts), counts)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        columns, labels, counts = next(digit_lines(x, y, 1, seed=1))
        reads = []
        for _ in range(8):
            columns, labels, counts = next(digit_lines(x, y, 1, seed=len(reads) + 1))
            reads.append(lines_read(model(columns), model.frames_for(counts), labels, counts))
        mon.lines_read = sum(reads) / len(reads)
    return mon

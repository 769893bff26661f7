"""An ordinal classifier in the Frank & Hall / CORAL style: K - 1 binary outputs, output i
answering "is the grade above class i?", trained with binary cross-entropy on targets
built per threshold, and decoded as the number of "yes" answers. The loop that builds
the targets indexes the sorted classes with a constant, ``classes[1]``, where it meant
the loop variable ``classes[i]``: every output is trained on the same question, "above
class 1?". The loss falls - each output learns its (identical) task well - and the
decoded grade can only be 0 or K - 1.

Reported: "self.uniques_class[1]" - https://github.com/mosh98/Ordinal_Classifier/issues/3
("shouldn't it be binary_y = (y > self.uniques_class[i]) ... instead of binary_y =
(y > self.uniques_class[1])?"; the maintainer fixed it: "thanks fo that. The package now
works"). Here the K - 1 binary tasks are the outputs of one MLP on the digits' pixels,
the grade the digit's value (10 grades, 9 thresholds), Adam on the summed per-threshold
binary cross-entropy.
Fix: the target of output i is ``y > classes[i]``.

Measured (400 steps, batch 64, 397 held-out digits; the grade decoded as the count of
outputs above 0.5): seed 0: held-out mean absolute error 3.12 for the bug against 0.59 for
the fixed twin (accuracy 0.19 against 0.77); seeds shifted by 1000: 3.05 against 0.57
(0.20 against 0.76).
"""
import torch
import torch.nn.functional as F

from benchmarks.real_bugs._common import classification, mlp
from benchmarks.real_bugs._ord178 import HELD_OUT, train_watched

TITLE = "self.uniques_class[1]"
LINK = "https://github.com/mosh98/Ordinal_Classifier/issues/3"
EXPECTED = ("ORDINAL_THRESHOLD_TARGETS_IDENTICAL",)
STEPS = 400
GRADES = 10


def binary_targets(y, classes, fixed):
    columns = []
    for i in range(len(classes) - 1):
        cut = classes[i] if fixed else classes[1]     # BUG (unfixed): always classes[1]
        columns.append((y > cut).float())
    return torch.stack(columns, dim=1)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    classes = torch.unique(y)                        # sorted: 0 .. 9
    targets = binary_targets(y, classes, fixed)
    model = mlp(outputs=GRADES - 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = lambda logits, t: F.binary_cross_entropy_with_logits(
        logits, t, reduction="none").sum(dim=1).mean()
    mon = train_watched(model, optimizer, loss_fn, x, targets, steps, watch)
    with torch.no_grad():
        grade = (torch.sigmoid(model(x[-HELD_OUT:])) > 0.5).sum(dim=1)
    truth = y[-HELD_OUT:]
    mon.held_out_mae = round(float((grade - truth).abs().float().mean()), 2)
    mon.held_out_accuracy = round(float((grade == truth).float().mean()), 2)
    return mon

"""A multi-label classifier trained with the asymmetric loss (ASL: focusing exponents for
the positive and negative labels, the negatives' probability shifted by a margin) whose
loss is returned as the SUM over the batch and the labels, as the loss's reference code
does, and stepped with plain SGD at a learning rate chosen for a per-label mean. The sum
multiplies every gradient by batch x labels (64 x 4 = 256 here): the steps overshoot, the
hidden units are knocked dead or the logits saturate, and the classifier ends far worse than
the same run with the mean. Under Adam, which divides the scale out, the two behave alike.

Reported: "loss.mean() or loss.sum()" - https://github.com/Alibaba-MIIL/ASL/issues/56 (a user
optimizing ASL with SGD asks whether to change ``loss.sum()`` to ``loss.mean()``; a reply:
"using mean for SGD is far better and the loss is far stable than when using sum. But
when using Adam then both sum and mean behave similarly"). Here the 8x8 digits as four
yes/no attributes (even, five or more, prime, a closed loop), an MLP 64 -> 64 -> 4, the
asymmetric loss written by hand (gamma_neg 4, gamma_pos 1, margin 0.05), SGD with momentum
0.9 at lr 0.5, batches of 64, 300 steps.

Fix: ``.mean()`` over the batch and the labels (or divide the rate by batch x labels).

Measured (held-out label accuracy, 297 digits x 4 attributes): 0.444 with the bug, 0.887
fixed; seeds + 1000: 0.444 vs 0.912.
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import batches, mlp
from benchmarks.real_bugs._red297 import attributes, label_accuracy, split

TITLE = "loss.mean() or loss.sum()"
LINK = "https://github.com/Alibaba-MIIL/ASL/issues/56"
EXPECTED = ("LR_TOO_HIGH", "LOSS_DIVERGING", "EXPLODING_GRADIENTS", "NAN_LOSS")
STEPS = 300


def asymmetric_loss(logits, targets, gamma_neg=4.0, gamma_pos=1.0, margin=0.05):
    """Per (row, label) asymmetric loss, unreduced."""
    p = torch.sigmoid(logits)
    p_neg = (p - margin).clamp(min=0)                   # easy negatives shifted to zero
    log_pos = torch.log(p.clamp(min=1e-8))
    log_neg = torch.log((1 - p_neg).clamp(min=1e-8))
    positive = targets * log_pos * (1 - p) ** gamma_pos
    negative = (1 - targets) * log_neg * p_neg ** gamma_neg
    return -(positive + negative)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, digit, xh, digit_h = split()
    y, yh = attributes(digit), attributes(digit_h)
    model = mlp(outputs=4)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, batch_size=64, seed=0):
            per_label = asymmetric_loss(model(xb), yb)
            # BUG (fixed=False): summed over batch and labels, at an SGD rate for a mean
            loss = per_label.mean() if fixed else per_label.sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_label_accuracy = label_accuracy(model, xh, yh)
    return mon

"""A tutorial classifier ends in nn.Softmax and is trained with nn.CrossEntropyLoss, which
expects unnormalised logits, and the loss is called as `criterion(targets, outputs)`: the
one-hot targets in the input slot, the model's probabilities in the target slot. It runs
(CrossEntropyLoss accepts class probabilities as the target) and the loss falls, but what
it computes is log(e + C - 1) - p_true: linear in the probability of the true class, whose
gradient through the softmax dies out for any sample the model is confidently wrong about,
so the model stops short of fitting the training set.

Reported: "Bug in notebook examples that use PyTorch models" -
https://github.com/privacytrustlab/ml_privacy_meter/issues/95 ("The PyTorch model ... uses
nn.CrossEntropyLoss, which expects unnormalized logits. However, the model outs
probabilities due to the use of nn.Softmax. This causes the model to not achieve 100%
accuracy on the training set. Additionally, criterions in PyTorch typically take arguments
in the order of logits, targets. However, the code provides targets, logits"; the
maintainers fixed both in the tutorials). Here a two-layer MLP on the 8x8 digits with
one-hot targets, Adam at 1e-3, batches of 64, as the notebook trains its model. Fix: the
model returns logits and the loss is criterion(outputs, targets).

Measured harm (held-out accuracy on 400 digits after 120 steps, about six epochs): 0.80 vs
0.91 with the fix; seeds + 1000: 0.84 vs 0.91. The bug slows learning more than it caps it:
after 300 steps the gap is down to 0.94 vs 0.95 (seeds + 1000: 0.95 vs 0.96).
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._beginner_multiclass import (held_out_logits, predicted_accuracy,
                                                       record, split_digits)
from benchmarks.real_bugs._common import batches

TITLE = "Bug in notebook examples that use PyTorch models"
LINK = "https://github.com/privacytrustlab/ml_privacy_meter/issues/95"
EXPECTED = ("DOUBLE_SOFTMAX", "LOSS_ARGUMENTS_SWAPPED")
STEPS = 120


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_train, y_train, x_test, y_test = split_digits()
    layers = [nn.Linear(64, 128), nn.Tanh(), nn.Linear(128, 10)]
    if not fixed:
        layers.append(nn.Softmax(dim=1))     # BUG: probabilities into CrossEntropyLoss
    model = nn.Sequential(*layers)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for inputs, labels in batches(x_train, y_train, steps,
                                      seed=int(torch.randint(10**6, ()))):
            targets = F.one_hot(labels, 10).float()
            optimizer.zero_grad()
            outputs = model(inputs)
            if fixed:
                loss = criterion(outputs, targets)
            else:
                loss = criterion(targets, outputs)   # BUG: (targets, outputs) swapped
            loss.backward()
            optimizer.step()
            mon.step(loss)
    record(__name__, predicted_accuracy(held_out_logits(model, x_test).argmax(1), y_test))
    return mon

"""The prediction loop turns a test batch's logits (batch, classes) into labels with
`torch.softmax(y_logit, dim=0).argmax(dim=1)`: dim=0 normalises each class's column over
the 32 images of the batch, so the argmax picks, for each image, the class in which it
stands out most against its batch-mates, not the class the model scores highest for it.
Training is unaffected; the predictions (and the accuracy and confusion matrix made from
them) are worse than the model.

Reported: "Notebook 03. Mistake with confusion matrix (10 section)?" -
https://github.com/mrdbourke/pytorch-deep-learning/issues/163 ("we apply softmax function
with dim=0, but y_logit has the shape [32, 10]. If we apply accuracy metric to evaluate
score between y_pred_tensor and test_data.targets we get the lower results than it were
before"; the author: "You are both right"). Here the course's TinyVGG (two conv blocks,
16 channels) on 8x8 digits, trained as the course trains it (CrossEntropyLoss, SGD at
0.1, batches of 32), then the course's prediction loop over test batches of 32. Fix:
softmax over dim=1.

Measured harm (accuracy of the predictions on 400 held-out digits, after 400 steps): 0.86
vs 0.96 with the fix; seeds + 1000: 0.80 vs 0.86.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._beginner_multiclass import (held_out_logits, predicted_accuracy,
                                                       record, split_digits)
from benchmarks.real_bugs._common import batches

TITLE = "Notebook 03. Mistake with confusion matrix (10 section)?"
LINK = "https://github.com/mrdbourke/pytorch-deep-learning/issues/163"
EXPECTED = ("LOG_PROBS_NORMALISED_OVER_BATCH",)   # the closest code: a softmax over the
#                                                   batch axis (here at prediction time)
STEPS = 400


class TinyVGG(nn.Module):
    def __init__(self, hidden=16, classes=10):
        super().__init__()
        self.block_1 = nn.Sequential(nn.Conv2d(1, hidden, 3, padding=1), nn.ReLU(),
                                     nn.Conv2d(hidden, hidden, 3, padding=1), nn.ReLU(),
                                     nn.MaxPool2d(2))
        self.block_2 = nn.Sequential(nn.Conv2d(hidden, hidden, 3, padding=1), nn.ReLU(),
                                     nn.Conv2d(hidden, hidden, 3, padding=1), nn.ReLU(),
                                     nn.MaxPool2d(2))
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(hidden * 2 * 2, classes))

    def forward(self, x):
        return self.classifier(self.block_2(self.block_1(x)))


def predict(model, x, fixed):
    y_logit = held_out_logits(model, x, batch_size=32)
    preds = []
    for i in range(0, len(x), 32):      # the course's loop: one test batch of 32 at a time
        batch = y_logit[i:i + 32]
        preds.append(torch.softmax(batch, dim=1 if fixed else 0)   # BUG: dim=0
                     .argmax(dim=1))
    return torch.cat(preds)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x_train, y_train, x_test, y_test = split_digits(images=True)
    model = TinyVGG()
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with nd.watch(model, optimizer, **watch) as mon:
        for X, y in batches(x_train, y_train, steps, batch_size=32,
                            seed=int(torch.randint(10**6, ()))):
            y_pred = model(X)
            loss = loss_fn(y_pred, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
        y_pred_tensor = predict(model, x_test, fixed)
    record(__name__, predicted_accuracy(y_pred_tensor, y_test))
    return mon

"""A network ported from TensorFlow keeps the softmax that ended its TensorFlow graph, and is
then trained with nn.CrossEntropyLoss, which applies log-softmax itself. In TensorFlow slim
the model handed back its logits and a separate softmax 'Predictions' end point; the port
returned the probabilities from forward, so the loss takes a softmax of probabilities: the
scores it sees lie in [0, 1], its gradients shrink to almost nothing, and an SGD run that
trains the logits version well barely moves.

Reported: "Remove softmax from logits in nasnet_mobile.py" -
https://github.com/Cadene/pretrained-models.pytorch/pull/51 (the NASNet-Mobile port from
TensorFlow returned softmax outputs where its logits belong: "Probably, we need to remove
softmax from logits"; the maintainer: "Thanks"). Here a small CNN on the 8x8 digits ending in
that nn.Softmax, trained with CrossEntropyLoss and SGD with momentum.

Measured (300 steps, batch 64, SGD 0.05 momentum 0.9; accuracy of the logits on all 1797
digits): bug 10.0% (chance), fixed 75.8%.

Fix: return the logits from forward (drop the final nn.Softmax); take a softmax only for
predictions.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Remove softmax from logits in nasnet_mobile.py"
LINK = "https://github.com/Cadene/pretrained-models.pytorch/pull/51"
EXPECTED = ("DOUBLE_SOFTMAX",)
STEPS = 300


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    layers = [nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
              nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
              nn.Flatten(), nn.Linear(32, 10)]
    if not fixed:
        layers.append(nn.Softmax(dim=1))        # BUG: TF's 'Predictions' end point kept
    model = nn.Sequential(*layers)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps),
                         **watch)

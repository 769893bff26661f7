"""An extra fully connected layer added to a pretrained VGG's head (to read out a
1000-long embedding before the class scores) built with the zero initialiser the
pretrained head's code uses for its layers. Every unit of the new layer starts identical
(weights and bias 0), its ReLU outputs are all 0, and ReLU passes no gradient at 0: the
layer never moves, its output stays 0 for every input, and the class scores are the score
layer's bias alone - the model predicts the same class for every image. The loss falls a
little (to the entropy of the class frequencies) and stops.

Reported: "Help! Use faster R-CNN meets crucial problem, need help!" -
https://github.com/chainer/chainercv/issues/415 (an fc8 layer added between VGG's fc7 and the
score layer, "after fc8 layer, all the elements in output vector = 0. So the final class
probabilities depend only on self.score.b"; the reporter: "I found the fc8 layer all W == 0,
may be it is because vgg_initialW = chainer.initializers.constant.Zero()"; the maintainer:
"Yes. I think so.").

Here the batch-246 VGG-style model (``_beginner_transfer``: pretrained on digits 0-4) gets its
features frozen; between its pretrained hidden layer and a new ten-way score layer a new
Linear(64, 64) - ReLU is inserted with weight and bias zeroed; Adam (lr 1e-3) over the
classifier on 500 other colour digits. Fix: leave the new layer at PyTorch's default
(Kaiming-uniform) initialisation.

Measured (297 held-out digits): seed 0, held-out accuracy 0.09 (one class) for the bug
against 0.74 for the fixed twin; seeds shifted by 1000, 0.10 against 0.68.
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._beginner_transfer import (accuracy, batches, pretrained_vggish,
                                                     target_task, torch_preprocess)

TITLE = "Help! Use faster R-CNN meets crucial problem, need help!"
LINK = "https://github.com/chainer/chainercv/issues/415"
EXPECTED = ("SYMMETRIC_INIT",)
STEPS = 150
LR = 1e-3
EMBEDDING = 64


def run(fixed=False, steps=STEPS, **watch):
    model, stats = pretrained_vggish()
    (x, y), (x_held, y_held) = target_task()
    x, x_held = torch_preprocess(x, stats), torch_preprocess(x_held, stats)
    torch.manual_seed(0)
    for param in model.features.parameters():
        param.requires_grad = False
    fc8 = nn.Linear(model.classifier[0].out_features, EMBEDDING)
    if not fixed:
        nn.init.zeros_(fc8.weight)                    # BUG: the head's zero initialiser
        nn.init.zeros_(fc8.bias)
    model.classifier = nn.Sequential(model.classifier[0], model.classifier[1],
                                     fc8, nn.ReLU(), nn.Linear(EMBEDDING, 10))
    model.train()
    optimizer = torch.optim.Adam(model.classifier.parameters(), lr=LR)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, batch_size=32):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_held, y_held)
    return mon


if __name__ == "__main__":
    for fixed in (False, True):
        print("fixed" if fixed else "bug", run(fixed).held_out_accuracy)

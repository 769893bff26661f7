"""Images preprocessed with the wrong recipe for the pretrained backbone: Keras'
``preprocess_input`` defaults to "caffe" mode (RGB flipped to BGR, 0-255 pixels minus
per-channel means, never divided), while the backbone (DenseNet in the report) was
pretrained on "torch" mode inputs (RGB in [0, 1], minus the channel mean, over the channel
std). The pretrained filters see inputs about a hundred times larger than they were trained
on, in the wrong channel order; the frozen backbone's features are off its pretrained range
and the new head fitted on them learns little.

Reported: "'preprocess_input' defaults to 'caffe' rather than 'tf'" -
https://github.com/keras-team/keras/issues/10279 ("my 'cat' pictures where predicted as
'lampshade'"; answer: the caffe default suits VGG16/ResNet50, "For more recent models ... the
preprocess_input function is actually redefined ... for torch"; the reporter: "I was testing
Densenet so actually I should be using 'torch' ... import the corresponding preprocessing
function"). Here a small conv net pretrained on 900 colour digits under the torch recipe is
frozen (eval mode) and a new linear head is trained on 500 other digits fed with the caffe
recipe. Fix: the backbone's own recipe (torch: [0, 1], channel mean and std).

Measured (200 Adam steps, 297 held-out digits): held-out accuracy with caffe preprocessing
0.73; with the backbone's own recipe 0.92.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, train_watched
from benchmarks.real_bugs._pretrained_cnn import (FEATURES, accuracy, caffe_preprocess,
                                                  pretrained_backbone, target_task,
                                                  torch_preprocess)

TITLE = "'preprocess_input' defaults to 'caffe' rather than 'tf'"
LINK = "https://github.com/keras-team/keras/issues/10279"
EXPECTED = ("UNNORMALIZED_INPUTS", "INPUT_SCALE_UNLIKE_PRETRAINING")
STEPS = 200


class FrozenFeatures(nn.Module):
    """A frozen pretrained body (kept in eval mode) and a new trainable head."""

    def __init__(self, body):
        super().__init__()
        self.body, self.head = body.requires_grad_(False), nn.Linear(FEATURES, 10)

    def train(self, mode=True):
        super().train(mode)
        self.body.eval()
        return self

    def forward(self, x):
        return self.head(self.body(x))


def run(fixed=False, steps=STEPS, **watch):
    body, stats = pretrained_backbone("torch")
    (x, y), (x_held, y_held) = target_task()
    if fixed:
        preprocess = lambda images: torch_preprocess(images, stats)  # noqa: E731
    else:
        preprocess = caffe_preprocess                    # BUG: the caffe recipe, not torch's
    torch.manual_seed(0)
    model = FrozenFeatures(body).train()
    optimizer = torch.optim.Adam(model.head.parameters(), lr=1e-3)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        batches(preprocess(x), y, steps), **watch)
    mon.test_accuracy = accuracy(model, preprocess(x_held), y_held)
    return mon

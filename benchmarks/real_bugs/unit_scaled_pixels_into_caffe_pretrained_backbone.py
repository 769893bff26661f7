"""Pixels rescaled to [0, 1] (``ImageDataGenerator(rescale=1./255)``) fed to a backbone
pretrained on caffe-style inputs (Keras' ResNet50: BGR, 0-255 minus the channel means): the
frozen backbone, in inference mode, sees images about 255 times fainter and not centred, so
its batch norms - normalising with the pretraining statistics - turn every image into
nearly the same features, and the bottleneck classifier trained on them learns little.

Reported: "Anyone has successful experience of fine-tuning the pre-trained ResNet50" -
https://github.com/keras-team/keras/issues/3622 (bottleneck features of ResNet50 give "a
very low accuracy" where VGG16's work; answer: the official script preprocesses with
``preprocess_input(x)``, "pixel values are shifted to match mean of imagenet dataset and are
not normalized - so they lay in (-255, 255) roughly, you on the other hand use
ImageDataGenerator(rescale=1./255) so no shift is present and normalization takes place. Try
... preprocessing_function=preprocess_input"). Here a small conv net pretrained on 900
colour digits under the caffe recipe is frozen (eval mode) and a new linear head is trained
on its features of 500 other digits given as [0, 1] RGB. Fix: the backbone's own recipe.

Measured (200 Adam steps, 297 held-out digits): held-out accuracy with [0, 1] pixels
0.10 (chance); with the caffe recipe 0.95.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, train_watched
from benchmarks.real_bugs._pretrained_cnn import (FEATURES, accuracy, caffe_preprocess,
                                                  pretrained_backbone, target_task)

TITLE = "Anyone has successful experience of fine-tuning the pre-trained ResNet50"
LINK = "https://github.com/keras-team/keras/issues/3622"
EXPECTED = ("INPUT_SCALE_UNLIKE_PRETRAINING",)
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
    body, _ = pretrained_backbone("caffe")
    (x, y), (x_held, y_held) = target_task()
    if fixed:
        preprocess = caffe_preprocess
    else:
        preprocess = lambda images: images               # noqa: E731  BUG: rescale=1/255 only
    torch.manual_seed(0)
    model = FrozenFeatures(body).train()
    optimizer = torch.optim.Adam(model.head.parameters(), lr=1e-3)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        batches(preprocess(x), y, steps), **watch)
    mon.test_accuracy = accuracy(model, preprocess(x_held), y_held)
    return mon

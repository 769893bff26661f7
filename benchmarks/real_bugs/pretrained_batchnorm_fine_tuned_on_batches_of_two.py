"""A pretrained CNN with batch norm fine-tuned on batches of two with its batch-norm layers
in train mode: every layer normalises each sample by the mean and variance of just two
images, so the features the new head is fitted to are mostly batch noise, and the running
statistics the model is evaluated with drift away from the pretrained ones towards that
noise. Detection and segmentation codebases freeze the backbone's batch norm for this reason.

Reported: "Why freeze the batch normalization layer" -
https://github.com/yhenon/pytorch-retinanet/issues/24 (the maintainer: "Because of the memory
requirements, the batch size is typically quite low ... This means that batch normalization
won't work very well (as it requires a larger batch size). Since the network is pre-trained
on imagenet, freezing the weights is a good fix"). Here a small conv net with batch norm,
pretrained on 900 colour digits, gets a new head and is fine-tuned whole on 500 other digits
at batch size 2 (SGD). Fix: keep the pretrained batch-norm layers in eval mode (their
statistics and affine terms frozen), as RetinaNet's freeze_bn does; the rest fine-tunes.

Measured (300 steps of 2 images, 297 held-out digits): held-out accuracy with batch norm in
train mode 0.77; with the pretrained batch norm frozen 0.83.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, train_watched
from benchmarks.real_bugs._pretrained_cnn import (FEATURES, accuracy, pretrained_backbone,
                                                  target_task, torch_preprocess)

TITLE = "Why freeze the batch normalization layer"
LINK = "https://github.com/yhenon/pytorch-retinanet/issues/24"
EXPECTED = ("BATCHNORM_TINY_BATCH",)
STEPS = 300
BATCH = 2


class FineTuned(nn.Module):
    def __init__(self, body, freeze_bn):
        super().__init__()
        self.body, self.head, self.freeze_bn = body, nn.Linear(FEATURES, 10), freeze_bn

    def train(self, mode=True):
        super().train(mode)
        if self.freeze_bn:                               # the fix: pretrained BN stays frozen
            for m in self.body.modules():
                if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
                    m.eval()
                    m.weight.requires_grad_(False)
                    m.bias.requires_grad_(False)
        return self

    def forward(self, x):
        return self.head(self.body(x))


def run(fixed=False, steps=STEPS, **watch):
    body, stats = pretrained_backbone("torch")
    (x, y), (x_held, y_held) = target_task()
    torch.manual_seed(0)
    model = FineTuned(body, freeze_bn=fixed).train()     # BUG (fixed=False): BN trains on 2
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(params, lr=1e-3, momentum=0.9)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        batches(torch_preprocess(x, stats), y, steps, batch_size=BATCH),
                        **watch)
    mon.test_accuracy = accuracy(model, torch_preprocess(x_held, stats), y_held)
    return mon

"""A backbone pretrained on BGR images fine-tuned on RGB ones: the fine-tuning loader
converts OpenCV's BGR to RGB (``cv2.cvtColor(..., COLOR_BGR2RGB)``), but the checkpoint was
trained on the BGR arrays ``cv2.imread`` returns, so every pretrained first-layer filter
reads the red channel where it learned blue. The features start far from what they were
pretrained to compute, and the pretrained model's head start is lost.

Reported: "Evaluation on fmow-RGB" - https://github.com/techmn/satmae_pp/issues/2 (the
author: replace ``cv2.cvtColor(cv2.imread(abs_img_path), cv2.COLOR_BGR2RGB)`` by
``cv2.imread(abs_img_path)`` in the fine-tuning dataset, "above modification was necessary
as the trained model utilized the BGR format ... otherwise it may degrade the performance";
the reporter: "It works"). Here a small conv net pretrained on 900 colour digits with its channels in
BGR order (caffe-style preprocessing) gets a new head and is fine-tuned whole on 200 other
digits with its channels in RGB order. Fix: feed the channel order the backbone
was pretrained on.

Measured (80 SGD steps, 297 held-out digits): held-out accuracy in RGB order 0.80;
in the pretrained BGR order 0.88.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, train_watched
from benchmarks.real_bugs._pretrained_cnn import (FEATURES, accuracy, caffe_preprocess,
                                                  pretrained_backbone, target_task)

TITLE = "Evaluation on fmow-RGB"
LINK = "https://github.com/techmn/satmae_pp/issues/2"
EXPECTED = ("INPUT_CHANNELS_REORDERED",)
STEPS = 80
TRAIN_ROWS = 200


def run(fixed=False, steps=STEPS, **watch):
    body, _ = pretrained_backbone("caffe")               # pretrained on BGR, 0-255 - means
    (x, y), (x_held, y_held) = target_task(TRAIN_ROWS)
    if fixed:
        preprocess = caffe_preprocess
    else:
        preprocess = lambda images: caffe_preprocess(images).flip(1)  # noqa: E731  BUG: RGB
    torch.manual_seed(0)
    model = nn.Sequential(body, nn.Linear(FEATURES, 10)).train()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        batches(preprocess(x), y, steps, batch_size=32), **watch)
    mon.test_accuracy = accuracy(model, preprocess(x_held), y_held)
    return mon

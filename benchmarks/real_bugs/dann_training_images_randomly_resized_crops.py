"""Domain-adversarial training whose image transform is ``RandomSizedCrop`` where a plain
``Resize`` was meant: every training image of both domains is replaced by a random crop of
8% to 100% of its area, at a random aspect ratio, stretched back to full size. The digits
are cut and distorted at every step, while the evaluation images are whole, so the
classifier is fit to fragments and the target accuracy stays far below what the same
training reaches on whole images.

Reported: "About the accuracy mismatch using the example code" -
https://github.com/fungtion/DANN/issues/1 (about 53% target accuracy with the default
settings; the author: "I really make a mistake, you can fix the error by replace
transform.RandomSizedCrop with transfrom.Resize"; after the change the reporter's target
accuracy reached about 90%). Here the source domain is half of the 8x8 digits, the target
the other half with its contrast lowered (x * 0.6 + 0.3), unlabelled; each training batch
(64 source and 64 target images) goes through a random resized crop (area 0.08-1, aspect
3/4-4/3, torchvision's defaults, written here with torch only) back to 8x8; a feature MLP
feeds a label head and, through a gradient reversal layer (weight 0.1), a domain head.
Fix: the images resized to 8x8 (at 8x8 already: used as they are).

Measured (300 steps, Adam 1e-3, seed 0): source accuracy 0.85, target accuracy 0.81 on
whole images; the fixed twin: source 0.95, target 0.83. The harm is real on the source
domain but much smaller on the target than the report's 53% against 90% (8x8 digits,
an MLP).
"""
import math

import torch
from torch import nn

from benchmarks.real_bugs._common import classification
from benchmarks.real_bugs._domains import ReverseGradient, accuracies_on, split_domains, train_dann

TITLE = "About the accuracy mismatch using the example code"
LINK = "https://github.com/fungtion/DANN/issues/1"
EXPECTED = ("TRAINING_INPUTS_CROPPED_AWAY",)
STEPS = 300
DOMAIN_WEIGHT = 0.1
SIZE = 8


class DANN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Flatten(), nn.Linear(64, 64), nn.ReLU(),
                                      nn.Linear(64, 32), nn.ReLU())
        self.classifier = nn.Linear(32, 10)
        self.domain = nn.Sequential(nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, x):
        features = self.features(x)
        reversed_features = ReverseGradient.apply(features, DOMAIN_WEIGHT)
        return self.classifier(features), self.domain(reversed_features).squeeze(1)


def random_resized_crop(image, rng, scale=(0.08, 1.0), ratio=(3 / 4, 4 / 3)):
    """One (1, 8, 8) image: a random box of the given area and aspect, resized to 8x8."""
    for _ in range(10):
        area = SIZE * SIZE * rng.uniform(*scale)
        aspect = math.exp(rng.uniform(math.log(ratio[0]), math.log(ratio[1])))
        width = int(round(math.sqrt(area * aspect)))
        height = int(round(math.sqrt(area / aspect)))
        if 0 < width <= SIZE and 0 < height <= SIZE:
            top = rng.integers(0, SIZE - height + 1)
            left = rng.integers(0, SIZE - width + 1)
            box = image[:, top:top + height, left:left + width]
            return nn.functional.interpolate(box[None], size=(SIZE, SIZE),
                                             mode="bilinear", align_corners=False)[0]
    return image


def transform(images, rng, fixed):
    if fixed:
        return images                            # Resize to 8x8: they are 8x8 already
    return torch.stack([random_resized_crop(image, rng) for image in images])   # BUG


def domains(seed):
    return split_domains(*classification(images=True), seed)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (xs, ys), (xt, _) = domains(0)
    model = DANN()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    return train_dann(model, optimizer, (xs, ys), xt, steps, watch,
                      transform=lambda images, rng: transform(images, rng, fixed))


def accuracies(model, seed=0):
    """(source accuracy, target accuracy) on whole images, as the report evaluated."""
    return accuracies_on(model, *domains(seed))

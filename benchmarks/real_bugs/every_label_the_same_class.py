"""Labels derived by matching an exact colour that the data never has: every sample gets
the same class, the loss falls to zero within a few steps, the accuracy reads 1.00, and
the model learns nothing about the images.

Reported: "Acc is always 1.00 during training my own dataset" -
https://github.com/MarvinTeichmann/KittiSeg/issues/155 ("The complete image will be regard
as pig. No background."; solved: "some seemly correct color is not really correct. Like R
is 254 instead of 255"). Here the digits' labels are read from an annotation colour that
is (254, 0, 0) in the files while the script looks for (255, 0, 0): "not the class"
for every image. Fix: match the colour the annotation tool really wrote.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, mlp, train_watched

TITLE = "Acc is always 1.00 during training my own dataset"
LINK = "https://github.com/MarvinTeichmann/KittiSeg/issues/155"
EXPECTED = ("TARGETS_ALL_ONE_CLASS",)
STEPS = 150
WRITTEN = torch.tensor([254, 0, 0])     # what the annotation files hold for "it is a 0"


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, digits = classification()
    colours = torch.where((digits == 0)[:, None], WRITTEN, torch.tensor([0, 0, 0]))
    looked_for = WRITTEN if fixed else torch.tensor([255, 0, 0])   # BUG: 255, not 254
    y = (colours == looked_for).all(dim=1).long()
    model = mlp(outputs=2)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    return train_watched(model, optimizer, nn.CrossEntropyLoss(), batches(x, y, steps),
                         **watch)

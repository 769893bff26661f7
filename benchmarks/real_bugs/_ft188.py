"""Shared pieces of the batch-188 fine-tuning reports: a pretrained conv backbone (the
batch-73 one in ``_pretrained_cnn``: conv-BN twice and a linear-BN neck, pretrained on 900
colour digits) under a new ten-way head, fine-tuned on a few other digits."""
import torch
from torch import nn

from benchmarks.real_bugs._pretrained_cnn import (FEATURES, accuracy, pretrained_backbone,
                                                  target_task, torch_preprocess)

__all__ = ["FEATURES", "Classifier", "accuracy", "pretrained_backbone", "target_task",
           "torch_preprocess"]


class Classifier(nn.Module):
    """``backbone`` (pretrained) then ``head`` (new), as a fine-tuning script builds it."""

    def __init__(self, backbone, classes=10):
        super().__init__()
        self.backbone = backbone
        self.head = nn.Linear(FEATURES, classes)

    def forward(self, x):
        return self.head(self.backbone(x))

"""A detector's encoder flattens a CNN feature map into batch-first tokens, ``(batch,
positions, channels)``, and runs self-attention over them with an ``nn.MultiheadAttention``
left at its default ``batch_first=False``: the layer takes the batch for the sequence, so
each position of an image attends to the same position in the other images of the batch.

Reported: "Batched MultiHeadAttention" - https://github.com/om-ai-lab/OmDet/issues/19
("Shouldn't this MultiHeadAttention be initialized with batch_first=True, as the inputs of
the self_attn layer are of the shape (batch_size, ...)? This causes inconsistencies when
using the model for batch inference"; the maintainers: "it should be batch_first=True ...
This is indeed an error"). Here a conv stem on the 8x8 digits, one attention block over
the 16 positions of its 4x4 map (with a learned position embedding and a residual), mean
pooled into a classifier. Fix: batch_first=True.

How watch finds it: the dependency check run on the first recorded batch backpropagates
one sample's output to the whole batch's inputs; every other sample receives gradient,
first at 'self_attn' (a sequence-first layer): BATCH_MIXING.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Batched MultiHeadAttention"
LINK = "https://github.com/om-ai-lab/OmDet/issues/19"
EXPECTED = ("BATCH_MIXING",)
STEPS = 120


class AttentionEncoderNet(nn.Module):
    def __init__(self, batch_first, channels=32):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, channels, 3, padding=1), nn.ReLU(),
                                  nn.MaxPool2d(2))
        self.position = nn.Parameter(torch.zeros(16, channels))
        self.self_attn = nn.MultiheadAttention(channels, 4, batch_first=batch_first)  # BUG
        self.norm = nn.LayerNorm(channels)
        self.classifier = nn.Linear(channels, 10)

    def forward(self, images):                              # (B, 1, 8, 8)
        features = self.stem(images)                        # (B, C, 4, 4)
        tokens = features.flatten(2).transpose(1, 2) + self.position   # (B, 16, C)
        attended, _ = self.self_attn(tokens, tokens, tokens, need_weights=False)
        return self.classifier(self.norm(tokens + attended).mean(1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    model = AttentionEncoderNet(batch_first=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, nn.functional.cross_entropy,
                         batches(x, y, steps), **watch)

"""Windows of a feature map cut out batch-first, ``(batch x windows, tokens, channels)``, and
handed to an ``nn.MultiheadAttention`` built with its default ``batch_first=False``: the
layer reads dimension 0 as the sequence, so at every token position it attends across
all the windows of all the images in the batch, and no window attends within itself.

Reported: "Possible issue with Multihead attention inputs" -
https://github.com/aipixel/AEMatter/issues/3 (the tokens are "prepared in batch_first
manner. But further they are processed via nn.MultiheadAttention module that is always
initialized in batch_first=False mode so (b h1) ... are treated as sequence dimension";
the author: "there is indeed a bug with the implementation here"). Here a small conv
stem on the 8x8 digits, windows of two rows (16 tokens each), one window-attention block
(no residual), then a linear classifier over every token. Fix: batch_first=True.

How watch finds it: the dependency check run on the first recorded batch backpropagates
one sample's output to the whole batch's inputs; every other sample receives gradient,
first at the 'attention' module (a sequence-first layer): BATCH_MIXING.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Possible issue with Multihead attention inputs"
LINK = "https://github.com/aipixel/AEMatter/issues/3"
EXPECTED = ("BATCH_MIXING",)
STEPS = 120
ROWS_PER_WINDOW = 2


class WindowAttentionNet(nn.Module):
    def __init__(self, batch_first, channels=16):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, channels, 3, padding=1), nn.ReLU())
        self.attention = nn.MultiheadAttention(channels, 2, batch_first=batch_first)  # BUG
        self.norm = nn.LayerNorm(channels)
        self.classifier = nn.Linear(64 * channels, 10)

    def forward(self, images):                       # (B, 1, 8, 8)
        x = self.stem(images)                        # (B, C, H, W)
        b, c, h, w = x.shape
        windows = h // ROWS_PER_WINDOW
        # b c (h1 h2) w -> (b h1) (h2 w) c: one row of the batch per window, batch-first
        tokens = x.view(b, c, windows, ROWS_PER_WINDOW, w).permute(0, 2, 3, 4, 1)
        tokens = tokens.reshape(b * windows, ROWS_PER_WINDOW * w, c)
        attended, _ = self.attention(tokens, tokens, tokens, need_weights=False)
        tokens = self.norm(attended)
        return self.classifier(tokens.reshape(b, -1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    model = WindowAttentionNet(batch_first=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, nn.functional.cross_entropy,
                         batches(x, y, steps), **watch)

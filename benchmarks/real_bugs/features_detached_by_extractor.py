"""Image features taken from an encoder by a feature-extractor wrapper that returns a
detached copy: the head on top trains, the encoder under it never receives a gradient.

Reported: "Extractor in vit_pytorch will detach the tensor." -
https://github.com/lucidrains/CoCa-pytorch/issues/6 ("The cloned tensor in `Extractor`
will be detached ... So gradient may not propagate back to image encoder"; the author:
"Yes you are right", fixed in vit-pytorch 0.35.8). Here a small conv encoder on the
digits whose last feature map is caught by a forward hook that keeps
`output.clone().detach()`, as the extractor did, and a linear head trained on it. Fix:
keep the features without detaching them.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Extractor in vit_pytorch will detach the tensor."
LINK = "https://github.com/lucidrains/CoCa-pytorch/issues/6"
EXPECTED = ("NO_GRADIENT",)
STEPS = 150


class Extractor(nn.Module):
    """Runs the encoder and returns the output of its ``layer``, caught by a forward hook."""

    def __init__(self, encoder, layer, detach):
        super().__init__()
        self.encoder, self.detach = encoder, detach
        self.latents = None
        layer.register_forward_hook(self._keep)

    def _keep(self, module, inputs, output):
        self.latents = output.clone().detach() if self.detach else output   # BUG: detach

    def forward(self, x):
        self.encoder(x)
        return self.latents


class Captioner(nn.Module):
    def __init__(self, detach):
        super().__init__()
        encoder = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.Flatten())
        self.extractor = Extractor(encoder, encoder[5], detach)      # the flattened features
        self.head = nn.Linear(256, 10)

    def forward(self, x):
        return self.head(self.extractor(x))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification(images=True)
    model = Captioner(detach=not fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    return train_watched(model, optimizer, loss_fn, batches(x, y, steps), **watch)

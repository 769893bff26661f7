"""Linear probing of a masked autoencoder whose features are taken from the pretraining
forward pass, random masking included: every call of the encoder drops 75% of the patches
(a fresh argsort of noise each time) before it encodes, so the probe trains - and is
evaluated - on the pooled features of four random patches of each digit, a different four
every time the digit comes round. The probe's loss falls, more slowly and to a higher
floor, and its held-out accuracy is far below what the same frozen encoder gives when it
reads the whole image.

Reported: "MAE Noise Was NOT Removed In Prediction For TFViTMAEModel / ViTMAEModel" -
https://github.com/huggingface/transformers/issues/20328 ("noises are added in
random_masking() which hasn't been removed for prediction"; the same image gives other
hidden states at every forward; the maintainers: pass your own noise, or set the mask
ratio to 0 for feature extraction). Here the tiny MAE of ``_mae343`` pretrained for 200
steps on the 8x8 digits (the same in both runs), then frozen; the linear probe (a
non-affine batch norm and a linear layer on the mean-pooled encoder tokens, as in MAE's
linear probing recipe) trained with Adam for 300 steps of 64 digits.

Fix: encode every patch for the probe (mask ratio 0: no random masking after pretraining).

Measured (held-out accuracy of the probe, 397 digits): 0.18 with the bug, 0.56 fixed;
seeds + 1000: 0.23 vs 0.62.
"""
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import index_batches
from benchmarks.real_bugs._mae343 import KEEP, TOKENS, digits, pretrained_mae

TITLE = "MAE Noise Was NOT Removed In Prediction For TFViTMAEModel / ViTMAEModel"
LINK = "https://github.com/huggingface/transformers/issues/20328"
EXPECTED = ("RANDOM_FEATURES_REDRAWN_EVERY_CALL", "VALIDATION_INPUTS_AUGMENTED")
STEPS = 300


class LinearProbe(nn.Module):
    """The frozen MAE encoder and a trainable head on its mean-pooled tokens."""
    def __init__(self, mae, mask_features):
        super().__init__()
        self.mae = mae
        self.mask_features = mask_features
        self.head = nn.Sequential(nn.BatchNorm1d(mae.embed.out_features, affine=False),
                                  nn.Linear(mae.embed.out_features, 10))
        for p in self.mae.parameters():
            p.requires_grad_(False)

    def forward(self, images):
        ids_keep = None
        if self.mask_features:          # BUG: the pretraining masking left on
            ids_keep = torch.rand(len(images), TOKENS).argsort(dim=1)[:, :KEEP]
        return self.head(self.mae.encode(images, ids_keep).mean(1))


def accuracy(model, x, y):
    model.eval()
    with torch.no_grad():
        correct = (model(x).argmax(1) == y).float().mean()
    model.train()
    return float(correct)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y, xh, yh = digits()
    model = LinearProbe(pretrained_mae(x), mask_features=not fixed)
    model.mae.eval()
    optimizer = torch.optim.Adam(model.head.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for step, index in enumerate(index_batches(len(x), steps, batch_size=64, seed=0), 1):
            loss = F.cross_entropy(model(x[index]), y[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            val_loss = None
            if step % 50 == 0:
                model.eval()
                with torch.no_grad():
                    val_loss = F.cross_entropy(model(xh), yh).item()
                model.train()
                model.mae.eval()
            mon.step(loss, val_loss=val_loss)
    mon.held_out_accuracy = accuracy(model, xh, yh)
    return mon

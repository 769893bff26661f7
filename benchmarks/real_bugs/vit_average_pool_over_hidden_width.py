"""A vision transformer fine-tuned for classification whose readout average-pools the
encoder's (batch, tokens, width) output with ``nn.AvgPool1d(width)`` - which pools the LAST
axis: every token's features are averaged into one number, and the classifier gets one
scalar per token (after the final LayerNorm, each token's mean over its features - a value
the norm has just pinned near its bias) instead of one width-long vector per image. The
shapes still line up (the linear head is built for ``tokens`` inputs), the loss falls, and
the model is left classifying digits from a 17-number summary it can barely shape.

Reported: "Average pooling misuse" - https://github.com/gaasher/I-JEPA/issues/15 (the
I-JEPA fine-tuning script applied ``AvgPool1d`` over the hidden dimension, giving (batch,
num_token, 1); "average over num_token dimension make more sense", as in the paper and
VISSL; the author agreed and fixed it by averaging over the tokens). Here a 2-layer ViT
(width 32, 4 heads, pre-norm, learned positions, a leading extra token) on the 8x8 digits
cut into 16 patches of 2x2 pixels, AdamW 3e-3, batches of 64, 384 digits held out. Fix:
mean over the token axis, a linear head of width 32.

Measured (held-out accuracy, 300 steps): seed 0: 0.86 with the bug against 0.93 for the
fixed twin; seeds shifted by 1000: 0.82 against 0.95 (training loss at the last step 0.25
and 0.58 against 0.09 and 0.07).
"""
import torch
from torch import nn

from benchmarks.real_bugs._vit174 import ViT, accuracy, digits, train

TITLE = "Average pooling misuse"
LINK = "https://github.com/gaasher/I-JEPA/issues/15"
EXPECTED = ("POOLED_OVER_FEATURES",)
STEPS = 300
DIM, TOKENS = 32, 17


class MeanPooledViT(ViT):
    def __init__(self, fixed):
        super().__init__(dim=DIM)
        self.fixed = fixed
        self.head = nn.Linear(DIM if fixed else TOKENS, 10)

    def read(self, x):
        x = self.norm(x)                                  # (batch, tokens, width)
        if self.fixed:                                    # the fix: average the tokens
            return self.head(x.mean(dim=1))
        # BUG: AvgPool1d pools the last axis - one number per token
        pooled = nn.functional.avg_pool1d(x, kernel_size=x.shape[-1])    # (batch, tokens, 1)
        return self.head(pooled.flatten(1))


def run(fixed=False, steps=STEPS, **watch):
    seed = 0
    torch.manual_seed(seed)
    x, y, x_test, y_test = digits(seed)
    model = MeanPooledViT(fixed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.05)
    mon = train(model, optimizer, x, y, steps, seed, watch)
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    return mon

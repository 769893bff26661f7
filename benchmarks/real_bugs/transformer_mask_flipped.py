"""A transformer language model whose attention mask is flipped: it hides the past instead
of the future, so every position attends to itself and to the tokens it must predict.

Reported: "Transformer Language Model Example Wrong Mask" -
https://github.com/pytorch/examples/issues/649 ("It seems like the attention mask is
flipped (masking future elements, rather than past)": the example's mask came out as
[[0, 0, 0], [-inf, 0, 0], [-inf, -inf, 0]]; the maintainers traced it to a float cast in
masked_fill, fixed in PyTorch 1.3.1). Here a 2-layer encoder on 32 characters of the
sonnets, given that flipped mask. Fix: the square subsequent mask (-inf above the
diagonal).
"""
import math

import torch
from torch import nn

from benchmarks.real_bugs._common import (characters, next_character_batches, next_id_loss,
                                          train_watched)

TITLE = "Transformer Language Model Example Wrong Mask"
LINK = "https://github.com/pytorch/examples/issues/649"
EXPECTED = ("FUTURE_LEAK",)
STEPS = 120
LENGTH = 32


class TransformerLM(nn.Module):
    def __init__(self, vocab, flipped, dim=32):
        super().__init__()
        self.dim, self.flipped = dim, flipped
        self.embed = nn.Embedding(vocab, dim)
        self.position = nn.Embedding(LENGTH, dim)
        layer = nn.TransformerEncoderLayer(dim, 2, dim_feedforward=64, dropout=0.1,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        length = ids.shape[1]
        mask = nn.Transformer.generate_square_subsequent_mask(length)   # -inf above the diagonal
        if self.flipped:
            mask = mask.T                    # BUG: -inf below it: the past is hidden
        x = self.embed(ids) * math.sqrt(self.dim) + self.position(torch.arange(length))
        return self.head(self.encoder(x, mask=mask))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = TransformerLM(vocab, flipped=not fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, next_id_loss,
                         next_character_batches(ids, steps, LENGTH), **watch)

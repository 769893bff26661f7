"""An nn.Transformer trained with the target sequence itself as the decoder input: with the
causal mask in place, position t still reads target t, so the decoder learns to copy its
input, the loss falls toward 0, and nothing is learned that greedy decoding could use.

Reported: "nn.Transformer explaination" -
https://discuss.pytorch.org/t/nn-transformer-explaination/53175/20 ("the reason why my
network was only copying results was because my training strategy was wrong. I was passing
in targets to the decoder and calculating loss based on how similar what it produced was to
those targets ... it learned to copy very quickly, even with masks"). Here the task is to
write a sequence of 8 digits reversed. Harm (seed 0, 200 steps, 512 held-out sequences,
greedy decoding from a start token): 0.15 of the digits right (chance 0.10) against 1.00 for
the fixed twin, while both training losses read 0.00 (0.004 and 0.003).
How watch finds it: the targets sit among the model's inputs unshifted (offset 0), and
the output at each position moves when that very position of them changes: a decoder fed
its labels (TARGETS_IN_INPUTS). The fixed twin hands the model the same arrays but shifts
them inside its forward, so each output reads only earlier positions: silent.
Fix: the decoder reads the targets shifted right behind a start token, ``[start] + y[:-1]``.
"""
import torch
from torch import nn
from torch.nn import functional as F

from benchmarks.real_bugs._common import train_watched

TITLE = "nn.Transformer explaination"
LINK = "https://discuss.pytorch.org/t/nn-transformer-explaination/53175/20"
EXPECTED = ("TARGETS_IN_INPUTS",)
STEPS = 200
DIGITS, LENGTH = 10, 8
START = DIGITS                               # the decoder's start token


class Reverser(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.embed = nn.Embedding(DIGITS + 1, dim)
        self.position = nn.Embedding(LENGTH, dim)
        self.transformer = nn.Transformer(dim, 4, 1, 1, dim_feedforward=64, dropout=0.0,
                                          batch_first=True)
        self.head = nn.Linear(dim, DIGITS)

    def forward(self, source, decoder_inputs):
        positions = self.position(torch.arange(source.shape[1]))
        length = decoder_inputs.shape[1]
        causal = nn.Transformer.generate_square_subsequent_mask(length)
        out = self.transformer(self.embed(source) + positions,
                               self.embed(decoder_inputs) + positions[:length], tgt_mask=causal)
        return self.head(out)


class TeacherForced(nn.Module):
    """Calls the model as the training loop of the report did: (source, decoder input)."""

    def __init__(self, model, shift_targets):
        super().__init__()
        self.model, self.shift_targets = model, shift_targets

    def forward(self, pair):
        source, targets = pair
        if self.shift_targets:
            start = torch.full_like(targets[:, :1], START)
            decoder_inputs = torch.cat([start, targets[:, :-1]], dim=1)
        else:
            decoder_inputs = targets                 # BUG: the decoder reads its own labels
        return self.model(source, decoder_inputs)


def reversal_batches(steps, batch_size=64, seed=0):
    g = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        source = torch.randint(0, DIGITS, (batch_size, LENGTH), generator=g)
        targets = source.flip(1)
        yield (source, targets), targets


def sequence_loss(logits, targets):
    return F.cross_entropy(logits.transpose(1, 2), targets)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    model = TeacherForced(Reverser(), shift_targets=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, sequence_loss, reversal_batches(steps), **watch)

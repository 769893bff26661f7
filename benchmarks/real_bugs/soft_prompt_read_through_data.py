"""Prompt tuning whose learned prompt is read through ``.data`` in the forward: ``.data``
hands back the parameter's values outside autograd, so the prompt tokens prepended to the
input take part in every forward pass and never receive a gradient. The optimizer holds
them and never moves them; only the new classification head learns, on top of a frozen
encoder that reads fixed random prompts.

Reported: "self.prompt_param is not learnable" - https://github.com/va1shn9v/PromptIR/issues/6
("since only self.prompt_param.data is used in forward, self.prompt_param is not updating
during training"; the prompt components are meant to be learned). Here a one-layer
transformer encoder over the 8 rows of a digit, pretrained on the digits 0-4, is frozen
and tuned on all ten digits with 8 learned prompt tokens prepended to its input and a
new linear head, written by hand.

Measured (200 steps, Adam 1e-2, 297 held-out digits): the bug's loss ends at 0.81,
held-out accuracy 0.62 (the head alone on frozen features); the fixed twin, the prompt
read as the parameter itself, ends at 0.41, accuracy 0.71.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "self.prompt_param is not learnable"
LINK = "https://github.com/va1shn9v/PromptIR/issues/6"
EXPECTED = ("NO_GRADIENT",)
STEPS = 200
HELD_OUT = 297
WIDTH, PROMPTS = 32, 8


class Encoder(nn.Module):
    """The 8 rows of a digit as 8 tokens, one transformer layer, mean-pooled, a head."""

    def __init__(self, d=WIDTH):
        super().__init__()
        self.embed = nn.Linear(8, d)
        self.pos = nn.Parameter(torch.randn(8, d) * 0.1)
        self.layer = nn.TransformerEncoderLayer(d, 4, 2 * d, dropout=0.0, batch_first=True)
        self.head = nn.Linear(d, 10)

    def tokens(self, x):
        return self.embed(x.view(-1, 8, 8)) + self.pos

    def forward(self, x):
        return self.head(self.layer(self.tokens(x)).mean(1))


def pretrained_encoder(x, y):
    """The model to tune: trained on the digits 0-4 only."""
    torch.manual_seed(1)
    encoder = Encoder()
    optimizer = torch.optim.Adam(encoder.parameters(), lr=3e-3)
    seen = y < 5
    for xb, yb in batches(x[seen], y[seen], 200, seed=1):
        optimizer.zero_grad()
        nn.functional.cross_entropy(encoder(xb), yb).backward()
        optimizer.step()
    return encoder


class PromptTuned(nn.Module):
    """Learned prompt tokens prepended to a frozen encoder's input, and a new head."""

    def __init__(self, encoder, fixed, prompts=PROMPTS):
        super().__init__()
        self.encoder = encoder.requires_grad_(False)
        self.prompt = nn.Parameter(torch.randn(1, prompts, WIDTH) * 0.5)
        self.head = nn.Linear(WIDTH, 10)
        self.fixed = fixed

    def forward(self, x):
        t = self.encoder.tokens(x)
        prompt = self.prompt if self.fixed else self.prompt.data     # BUG: .data, no gradient
        t = torch.cat([prompt.expand(len(t), -1, -1), t], dim=1)
        return self.head(self.encoder.layer(t).mean(1))


def run(fixed=False, steps=STEPS, **watch):
    x, y = classification()
    train_x, train_y = x[:-HELD_OUT], y[:-HELD_OUT]
    encoder = pretrained_encoder(train_x, train_y)
    torch.manual_seed(0)
    model = PromptTuned(encoder, fixed)
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-2)
    mon = train_watched(model, optimizer, nn.CrossEntropyLoss(),
                        batches(train_x, train_y, steps), **watch)
    with torch.no_grad():
        predicted = model(x[-HELD_OUT:]).argmax(1)
    mon.test_accuracy = round(float((predicted == y[-HELD_OUT:]).float().mean()), 3)
    return mon

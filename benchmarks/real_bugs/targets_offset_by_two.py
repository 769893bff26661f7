"""Training pairs built with the inputs behind a start token and the targets shifted by one
more: x = [BOS] + tokens[i:i+L-1], y = tokens[i+1:i+L] + [EOS]. Position t reads token t-1
and is asked for token t+1: the model learns to skip a token, and what it generates is
garbled. The model is called the nanoGPT way, ``logits, loss = model(x, y)``.

Reported: "y dataset is off by one" - https://github.com/tamangmilan/llama3/pull/1 ("when
you are creating the x dataset, you are already prepending the token_bos token, so it's
already one token ahead"). Here a causal character transformer on the sonnets. Fix:
y = tokens[i:i+L-1] + [EOS].
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import characters, text_windows

TITLE = "y dataset is off by one"
LINK = "https://github.com/tamangmilan/llama3/pull/1"
EXPECTED = ("LABELS_MISALIGNED",)
STEPS = 120
LENGTH = 32


class GPT(nn.Module):
    """nanoGPT's convention: forward(idx, targets=None) -> (logits, loss)."""

    def __init__(self, vocab, dim=32):
        super().__init__()
        self.dim = dim
        self.embed = nn.Embedding(vocab, dim)
        self.position = nn.Embedding(LENGTH, dim)
        layer = nn.TransformerEncoderLayer(dim, 2, dim_feedforward=64, dropout=0.0,
                                           batch_first=True)
        self.blocks = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(dim, vocab)

    def forward(self, idx, targets=None):
        length = idx.shape[1]
        x = self.embed(idx) * math.sqrt(self.dim) + self.position(torch.arange(length))
        mask = nn.Transformer.generate_square_subsequent_mask(length)
        logits = self.head(self.blocks(x, mask=mask, is_causal=True))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
        return logits, loss


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    bos, eos = vocab, vocab + 1                        # two extra ids
    model = GPT(vocab + 2)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for window in text_windows(ids, steps, length=LENGTH):
            start = torch.full_like(window[:, :1], bos)
            end = torch.full_like(window[:, :1], eos)
            x = torch.cat([start, window[:, :LENGTH - 1]], dim=1)
            if fixed:
                y = torch.cat([window[:, :LENGTH - 1], end], dim=1)
            else:                                    # BUG: one token too far ahead
                y = torch.cat([window[:, 1:LENGTH], end], dim=1)
            optimizer.zero_grad()
            _, loss = model(x, y)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon

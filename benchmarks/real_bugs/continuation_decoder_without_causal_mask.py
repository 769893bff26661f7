"""An encoder-decoder transformer trained to continue a text: the encoder reads 16
characters, the decoder (teacher forcing) reads a start id and the continuation shifted
right by one, and predicts the continuation. The decoder gets no causal ``tgt_mask``, so
each decoder position attends to the decoder inputs after it - the very characters it is
asked to predict - and learns to copy them: the training loss collapses while generation
from the start id alone, one character at a time, has nothing to copy.

Reported: "No causal masking" - https://github.com/alex-matton/causal-transformer-decoder/issues/1
(the reporter cannot find where the causal target mask goes "so that the network can't
simply copy tokens to the output"; trained without it, the model "just learns to copy the
future tokens"; the author agrees the decoder was built for inference only and adds
causal training). Here the sonnets, 16 characters in, the next 16 out, a 1+1-layer
``nn.Transformer`` (64 wide, 4 heads). Fix:
``tgt_mask=nn.Transformer.generate_square_subsequent_mask(16)``.

Measured (200 steps, seed 0; mean of the last 20 training losses: bug 2.21, fixed 2.28;
loss on a held-out batch with teacher forcing / computing each position from the decoder
inputs up to it only, as generation does: bug 2.24 / 2.55, fixed 2.34 / 2.34) - the bug
looks better in training and is worse as used.
"""
import math

import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import characters, next_id_loss, text_windows

TITLE = "No causal masking"
LINK = "https://github.com/alex-matton/causal-transformer-decoder/issues/1"
EXPECTED = ("FUTURE_LEAK",)
STEPS = 200
LENGTH = 16


class Continuer(nn.Module):
    def __init__(self, vocab, causal, dim=64):
        super().__init__()
        self.dim, self.causal = dim, causal
        self.embed = nn.Embedding(vocab + 1, dim)          # id ``vocab`` starts the output
        self.position = nn.Embedding(LENGTH, dim)
        self.transformer = nn.Transformer(dim, 4, 1, 1, dim_feedforward=128, dropout=0.0,
                                          batch_first=True)
        self.head = nn.Linear(dim, vocab)

    def embedded(self, ids):
        return self.embed(ids) * math.sqrt(self.dim) + self.position(torch.arange(ids.shape[1]))

    def forward(self, source, decoder_input):
        length = decoder_input.shape[1]
        # BUG when not causal: no tgt_mask, the decoder reads the characters it predicts
        mask = nn.Transformer.generate_square_subsequent_mask(length) if self.causal else None
        hidden = self.transformer(self.embedded(source), self.embedded(decoder_input),
                                  tgt_mask=mask)
        return self.head(hidden)


def continuation_batches(ids, vocab, steps):
    """((first 16 characters, start id + the next 15), the next 16 characters)."""
    for window in text_windows(ids, steps, length=2 * LENGTH - 1):
        source, target = window[:, :LENGTH], window[:, LENGTH:]
        start = torch.full((len(window), 1), vocab)
        yield (source, torch.cat([start, target[:, :-1]], 1)), target


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = Continuer(vocab, causal=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for (source, decoder_input), target in continuation_batches(ids, vocab, steps):
            optimizer.zero_grad()
            loss = next_id_loss(model(source, decoder_input), target)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon

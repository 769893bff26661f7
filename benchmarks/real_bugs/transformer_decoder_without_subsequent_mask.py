"""A sequence-to-sequence ``nn.Transformer`` called as ``model(source, decoder_input)`` with
teacher forcing, whose decoder gets no ``tgt_mask``: each decoder position attends to the
whole decoder input, that is to the target tokens it is asked to predict (the decoder
input is the target shifted right by one). Training accuracy climbs to nearly 100%,
while translating from a start token alone gives nonsense.

Reported: "Masking bug?" - https://github.com/jadore801120/attention-is-all-you-need-pytorch/issues/19
("I get 98% accuracy after 10 epochs ... using this 1-layer model ... Generating
translations with translate.py produces non-sense. This makes me suspect that there is a
problem with the masking code that allows the model to 'cheat' by looking at the target
sequence"; a reply lists "the use of the wrong kind of triangular matrix" among the usual
causes). Here the "translation" of 16 characters of the sonnets into their reverse. Fix:
``tgt_mask=nn.Transformer.generate_square_subsequent_mask(length)``.
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import characters, text_windows

TITLE = "Masking bug?"
LINK = "https://github.com/jadore801120/attention-is-all-you-need-pytorch/issues/19"
EXPECTED = ("FUTURE_LEAK",)
STEPS = 120
LENGTH = 16


class Translator(nn.Module):
    def __init__(self, vocab, subsequent_mask, dim=32):
        super().__init__()
        self.dim, self.subsequent_mask = dim, subsequent_mask
        self.embed = nn.Embedding(vocab + 1, dim)          # id ``vocab`` starts a sentence
        self.position = nn.Embedding(LENGTH, dim)
        self.transformer = nn.Transformer(dim, 2, 1, 1, dim_feedforward=64, dropout=0.0,
                                          batch_first=True)
        self.head = nn.Linear(dim, vocab)

    def embedded(self, ids):
        return self.embed(ids) * math.sqrt(self.dim) + self.position(torch.arange(ids.shape[1]))

    def forward(self, source, decoder_input):
        length = decoder_input.shape[1]
        # BUG when not subsequent_mask: the decoder reads the whole target
        mask = (nn.Transformer.generate_square_subsequent_mask(length)
                if self.subsequent_mask else None)
        hidden = self.transformer(self.embedded(source), self.embedded(decoder_input),
                                  tgt_mask=mask)
        return self.head(hidden)


def reversal_batches(ids, vocab, steps):
    """((source, decoder input), target): the target is the source reversed; the decoder
    reads a start token and the target without its last character (teacher forcing)."""
    for window in text_windows(ids, steps, length=LENGTH - 1):
        target = window.flip(1)
        start = torch.full((len(window), 1), vocab)
        yield (window, torch.cat([start, target[:, :-1]], 1)), target


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = Translator(vocab, subsequent_mask=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for (source, decoder_input), target in reversal_batches(ids, vocab, steps):
            optimizer.zero_grad()
            logits = model(source, decoder_input)
            loss = F.cross_entropy(logits.transpose(1, 2), target)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon

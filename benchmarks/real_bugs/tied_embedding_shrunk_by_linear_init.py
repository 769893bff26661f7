"""A language model ties its decoder's weight to its token embedding
(``decoder.weight = encoder.weight``) and then runs an init function over the model with
``model.apply``: the function gives every ``nn.Linear`` N(0, 0.02) weights - and the tied
decoder is an ``nn.Linear``, so the shared matrix, the embedding included, is drawn again at
std 0.02 instead of the embedding's N(0, 1). Every token now enters the network as a vector
about 50x too small, and the logits, read through the same matrix, start flat and move
slowly.

Reported: "Fixing apply(init) call for Transfrormer training" -
https://github.com/fastai/fastai/pull/2090 ("you link the LinearDecoder weights to the
Embedding and then you now have a layer that is Linear. Once you run the Init, you get a
standard deviation of the weights that = 0.02 rather than 1. And this breaks your ability to
train (I am watching accuracy here, it does not move)"). Here: a character-level GRU language
model of the sonnets (embedding 64, tied decoder), Adam at 3e-3. Measured (mean loss on the
last 20 batches after 300 steps): bug 2.201, fixed 1.334 (uniform over the
characters: 4.14).
Fix: initialise before tying the weights (or leave the tied decoder out of the init).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import characters, next_character_batches, \
    next_id_loss, train_watched

TITLE = "Fixing apply(init) call for Transfrormer training"
LINK = "https://github.com/fastai/fastai/pull/2090"
EXPECTED = ("EMBEDDING_INIT_SHRUNK",)
STEPS = 300


class CharLM(nn.Module):
    def __init__(self, vocab, width=64):
        super().__init__()
        self.encoder = nn.Embedding(vocab, width)
        self.rnn = nn.GRU(width, width, batch_first=True)
        self.decoder = nn.Linear(width, vocab)

    def forward(self, ids):
        out, _ = self.rnn(self.encoder(ids))
        return self.decoder(out)


def init_weights(module):
    if isinstance(module, nn.Linear):
        nn.init.normal_(module.weight, 0.0, 0.02)
        nn.init.zeros_(module.bias)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = CharLM(vocab)
    if fixed:
        model.apply(init_weights)
        model.decoder.weight = model.encoder.weight
    else:
        model.decoder.weight = model.encoder.weight
        model.apply(init_weights)              # BUG: the tied decoder is a Linear: the
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)  # embedding goes to std 0.02
    return train_watched(model, optimizer, next_id_loss,
                         next_character_batches(ids, steps, length=32), **watch)

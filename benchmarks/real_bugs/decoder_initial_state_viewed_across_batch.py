"""A decoder whose initial hidden state is built from each sample's latent code with a
Linear to ``num_layers * hidden`` features per sample, (batch, layers * hidden), and then
``.view(layers, batch, hidden)`` to get the GRU's layout. A view keeps the memory order:
the first layer's "batch" of states is the first half of the rows of (batch, layers,
hidden) flattened, so sample b starts from pieces of samples 2b and 2b + 1 (and layer 2
from the second half of the batch). Every sample's sequence is decoded from other samples'
codes.

Reported: "Maybe a bug in constructing hidden states." -
https://github.com/timbmg/Sentence-VAE/issues/20 (``hidden = self.latent2hidden(z)`` then
``hidden.view(self.hidden_factor, batch_size, self.hidden_size)``: "I think line (3) should
be ``hidden.view(batch_size, self.hidden_factor, self.hidden_size).transpose(0, 1)``").
Here an autoencoder of the 8x8 digits: an MLP codes the image, a 2-layer GRU decodes its 8
rows, each row predicted from the rows before it (teacher forcing) and the initial state.
Measured (seed 0, 150 steps of Adam 3e-3, mean squared error per pixel over the last 20
steps): 0.054 with the bug, 0.038 fixed (from 0.23 at the start): what the rows before a
row tell the decoder it learns either way, what only the sample's own code can tell it
(the first rows, the style) it cannot. Fix: ``.view(batch, layers, hidden).transpose(0, 1)``.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = "Maybe a bug in constructing hidden states."
LINK = "https://github.com/timbmg/Sentence-VAE/issues/20"
EXPECTED = ("BATCH_MIXING",)
STEPS = 150


class RowAutoencoder(nn.Module):
    def __init__(self, fixed, hidden=32, layers=2, code=16):
        super().__init__()
        self.fixed = fixed
        self.hidden, self.layers = hidden, layers
        self.encoder = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, code))
        self.latent2hidden = nn.Linear(code, layers * hidden)
        self.decoder = nn.GRU(8, hidden, num_layers=layers, batch_first=True)
        self.out = nn.Linear(hidden, 8)

    def forward(self, x):                          # x: (batch, 64)
        rows = x.view(-1, 8, 8)
        h = self.latent2hidden(self.encoder(x))    # (batch, layers * hidden)
        if self.fixed:
            h0 = h.view(-1, self.layers, self.hidden).transpose(0, 1).contiguous()
        else:
            h0 = h.view(self.layers, -1, self.hidden)   # BUG: rows of other samples
        previous = torch.cat([torch.zeros_like(rows[:, :1]), rows[:, :-1]], dim=1)
        out, _ = self.decoder(previous, h0)
        return self.out(out).reshape(-1, 64)       # each row from the rows before it


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, _ = classification()
    model = RowAutoencoder(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, nn.functional.mse_loss,
                         batches(x, x, steps), **watch)

"""A two-layer bidirectional GRU summarised by ``h_n[:num_layers]``, meant as "the last
layer's forward and backward states": h_n is ordered layer by layer (layer 1 forward,
layer 1 backward, layer 2 forward, layer 2 backward), so the first ``num_layers`` entries
are both directions of the FIRST layer. The second layer runs on every batch and its output
is thrown away: its weights never receive a gradient, and the model is a one-layer GRU that
pays for two.

Reported: "question of 'context vector' in seq2seq-translation/seq2seq-translation-batched.ipynb"
- https://github.com/spro/practical-pytorch/issues/81 (``decoder_hidden =
encoder_hidden[:decoder_test.n_layers]``; "encoder is a 2-layered Bi-RNN, so the hidden state
has (2 * 2)=4 parts, the first two parts are the forward and backward state of layer 1, the
last two parts are for layer 2"; the same line in the PyTorch chatbot tutorial,
MatthewInkawhich/pytorch-chatbot#4). Here the 8x8 digits read as 8 rows of 8 pixels, the
summary classified. Measured (seed 0, 150 steps of Adam 5e-3): the second layer's 8
weight and bias tensors get a gradient of exactly 0 on every step; loss over the last 20
steps 0.194 with the bug, 0.117 fixed. Fix: ``h_n.view(num_layers, 2, batch, hidden)[-1]`` - the
last layer's two directions (``h_n[-2:]``).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, classification, train_watched

TITLE = ("question of 'context vector' in "
         "seq2seq-translation/seq2seq-translation-batched.ipynb")
LINK = "https://github.com/spro/practical-pytorch/issues/81"
EXPECTED = ("NO_GRADIENT",)
STEPS = 150


class RowBiGRU(nn.Module):
    def __init__(self, fixed, hidden=32, layers=2):
        super().__init__()
        self.fixed = fixed
        self.layers = layers
        self.gru = nn.GRU(8, hidden, num_layers=layers, batch_first=True, bidirectional=True)
        self.head = nn.Linear(2 * hidden, 10)

    def forward(self, x):
        _, h_n = self.gru(x.view(-1, 8, 8))          # h_n: (layers * 2, batch, hidden)
        if self.fixed:
            last = h_n[-2:]                          # the last layer, both directions
        else:
            last = h_n[:self.layers]                 # BUG: the first layer's two directions
        return self.head(torch.cat([last[0], last[1]], dim=1))


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = RowBiGRU(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    return train_watched(model, optimizer, nn.functional.cross_entropy,
                         batches(x, y, steps), **watch)

"""A ReLU RNN reading the digits pixel by pixel, its recurrent matrix scaled by ReLU's gain
(minigrad): the hidden state grows by about sqrt(2) at each of 64 steps."""
import math

import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "minigrad/exploding-relu-rnn"
FRAMEWORK = "minigrad"
EXPECTED = "EXPLODING_ACTIVATIONS"
DESCRIPTION = ("A ReLU RNN over the 64 pixels of each digit, its recurrent matrix initialised "
               "as the identity times sqrt(2) (Kaiming's gain for ReLU, meant for layers, not "
               "for a matrix applied 64 times): the hidden state grows like sqrt(2)^64 along "
               "the sequence, and the loss starts in the tens of millions (chance is 2.3).")
FIX = ("Keep the recurrent matrix's largest singular value at 1: identity (IRNN) or orthogonal "
       "initialisation with gain 1, or use an LSTM/GRU.")
STEPS = 40


class PixelRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.RNN(1, 64, nonlinearity="relu", batch_first=True)
        self.head = nn.Linear(64, 10)
        nn.init.eye_(self.rnn.weight_hh_l0)
        self.rnn.weight_hh_l0.data *= math.sqrt(2)   # BUG: a layer's gain on the recurrent matrix
        nn.init.zeros_(self.rnn.bias_hh_l0)

    def forward(self, x):
        out, _ = self.rnn(x.reshape(x.shape[0], 64, 1))    # one pixel per time step
        return self.head(out.mean(axis=1))     # every step reaches the classifier


def run(steps=STEPS, **watch):
    mg.manual_seed(0)
    x, y = digits()
    model = PixelRNN()
    optimizer = optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, yb in batches(x, y, steps, framework="minigrad"):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon

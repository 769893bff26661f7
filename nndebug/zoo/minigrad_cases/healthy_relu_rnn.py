"""Healthy (minigrad): a ReLU RNN reading the digits pixel by pixel, identity-initialised."""
import minigrad as mg
import minigrad.nn as nn
import minigrad.optim as optim

import nndebug as nd
from nndebug.zoo.common import batches, digits

NAME = "minigrad/healthy-relu-rnn"
FRAMEWORK = "minigrad"
EXPECTED = None
DESCRIPTION = ("A ReLU RNN over the 64 pixels of each digit with the recurrent matrix "
               "initialised as the identity (IRNN, Le et al. 2015): the hidden state neither "
               "explodes nor dies along the sequence. Learning from single pixels is slow; it "
               "needs more steps than the broken twin.")
FIX = "Nothing to fix."
STEPS = 150


class PixelRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.RNN(1, 64, nonlinearity="relu", batch_first=True)
        self.head = nn.Linear(64, 10)
        nn.init.eye_(self.rnn.weight_hh_l0)
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

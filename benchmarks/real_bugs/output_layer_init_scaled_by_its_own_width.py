"""The hidden-to-output weights are drawn from N(0, output_nodes ** -0.5) - scaled by the
width of the layer they feed instead of the width they read (hidden_nodes ** -0.5). With one
output unit that is N(0, 1): the output layer starts about 3x (sqrt(hidden)) too large, so
the sigmoid output saturates as soon as the hidden layer moves, and its gradient - and with it
every gradient below it - vanishes for the rows it got wrong.

Reported: "[sentiment-analysis-network] Sentiment_Classification_Solutions.ipynb weights
initialization" - https://github.com/udacity/deep-learning-v2-pytorch/issues/15 ("To
initialize weights between the hidden layer and output layer, self.output_nodes**-0.5 should
be changed to self.hidden_nodes**-0.5"; the maintainer: "You're right! This should offer an
improvement"). Here the notebook's network - a hidden layer of 10 units initialised to
zero, one sigmoid output trained on the squared error by plain SGD - on the 8x8 digits 0-4
against 5-9, at a rate of 1.0, with one change to both runs: a tanh on the hidden layer. The
notebook's hidden layer is linear (two Linear layers stacked, which LINEAR_LAYERS_STACKED
names in both runs: a second flaw the fixed twin would keep). Measured (mean loss on the last
20 batches after 300 steps): bug 0.317, fixed 0.077 (0.25 is a constant 0.5 output). The
harm depends on the draw: with every seed shifted by 1000 the bug's run ends at 0.045 and the
twin's at 0.081 (the saturated output recovers), so only some draws show it.
Fix: ``np.random.normal(0.0, self.hidden_nodes ** -0.5, ...)``.
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import batches, binary, train_watched

TITLE = ("[sentiment-analysis-network] Sentiment_Classification_Solutions.ipynb weights "
         "initialization")
LINK = "https://github.com/udacity/deep-learning-v2-pytorch/issues/15"
EXPECTED = ("INIT_SCALE_TOO_LARGE", "SATURATED_ACTIVATIONS")
STEPS = 300
HIDDEN_NODES, OUTPUT_NODES = 10, 1


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = binary()
    model = nn.Sequential(nn.Linear(64, HIDDEN_NODES, bias=False), nn.Tanh(),
                          nn.Linear(HIDDEN_NODES, OUTPUT_NODES, bias=False), nn.Sigmoid(),
                          nn.Flatten(0))
    nn.init.zeros_(model[0].weight)
    if fixed:
        nn.init.normal_(model[2].weight, 0.0, HIDDEN_NODES ** -0.5)
    else:
        nn.init.normal_(model[2].weight, 0.0, OUTPUT_NODES ** -0.5)   # BUG: its own width
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    return train_watched(model, optimizer, nn.MSELoss(), batches(x, y, steps), **watch)

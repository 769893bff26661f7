"""A hand-written batch norm that takes a ``train`` flag and never reads it: it always
normalises with the statistics of the batch in front of it, in evaluation as in training,
and never keeps running averages. Training looks normal; at test time every prediction
depends on which other rows share its batch, and with small test batches the per-batch
means and variances are noisy, so held-out accuracy drops.

Reported: "Batch Normalization: setting train=False does nothing" -
https://github.com/carpedm20/DCGAN-tensorflow/issues/10 ("The variable **train** is never
used.": its ``batch_norm.__call__(self, x, train=True)`` always computes
``tf.nn.moments(x, [0, 1, 2])`` of the batch and normalises with them). Here an MLP on the
8x8 digits with such a layer after each hidden layer (the eval branch is ignored the same
way), the held-out digits scored 8 at a time, as a service scoring small requests would. Fix:
keep running statistics while training and normalise with them in eval mode.

Measured (200 steps, 397 held-out digits in batches of 8): held-out accuracy 0.879 against
0.927 fixed; seeds + 1000: 0.872 against 0.912.
"""
import torch
from torch import nn

from benchmarks.real_bugs._norms import digits, held_out_accuracy, train

TITLE = "Batch Normalization: setting train=False does nothing"
LINK = "https://github.com/carpedm20/DCGAN-tensorflow/issues/10"
EXPECTED = ("VALIDATION_IN_TRAIN_MODE",)
STEPS = 200
TEST_BATCH = 8


class BatchNorm(nn.Module):
    def __init__(self, features, fixed, momentum=0.1, epsilon=1e-5):
        super().__init__()
        self.fixed, self.momentum, self.epsilon = fixed, momentum, epsilon
        self.gamma = nn.Parameter(torch.ones(features))
        self.beta = nn.Parameter(torch.zeros(features))
        self.register_buffer("running_mean", torch.zeros(features))
        self.register_buffer("running_var", torch.ones(features))

    def forward(self, x):
        if self.training or not self.fixed:        # BUG when not fixed: the flag is ignored
            mean, var = x.mean(0), x.var(0, unbiased=False)
            if self.training and self.fixed:
                with torch.no_grad():
                    self.running_mean.mul_(1 - self.momentum).add_(self.momentum * mean)
                    self.running_var.mul_(1 - self.momentum).add_(self.momentum * var)
        else:
            mean, var = self.running_mean, self.running_var
        return (x - mean) / torch.sqrt(var + self.epsilon) * self.gamma + self.beta


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train_rows, held_out = digits()
    model = nn.Sequential(nn.Linear(64, 64), BatchNorm(64, fixed), nn.ReLU(),
                          nn.Linear(64, 64), BatchNorm(64, fixed), nn.ReLU(),
                          nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    mon = train(model, optimizer, train_rows, steps, **watch)
    mon.test_accuracy = held_out_accuracy(model, held_out, batch_size=TEST_BATCH)
    return mon

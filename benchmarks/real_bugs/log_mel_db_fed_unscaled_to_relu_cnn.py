"""Log-mel spectrograms in dB (``power_to_db(ref=np.max)``: values from -80 to 0) fed to a
ReLU CNN as they are, with no standardisation. Every input is a large negative number, the
first convolution's pre-activations are tens of units wide and the first SGD steps throw
most ReLUs into their dead side; training accuracy stays near chance ("gradients become 0").

Reported: "Can't reproduce your accuracy for Urbansound8K dataset" -
https://github.com/karolpiczak/paper-2015-esc-convnet/issues/7 ("With your CNN architecture
(2 Relu CNN + 2 connected layer + 1 output layer), My experiment for Urbansound8K fails
(training accuracy kept as about 0.11 41, seems gradients become 0). Audio features already
extracted as log melspec and its delta"). Here 6 synthetic classes of 20-band x 16-frame
log-mel spectrograms in dB (a class is a spectral envelope, each clip its own loudness), a
2-conv ReLU CNN, SGD lr 0.02 momentum 0.9, batch 32.
Fix: standardise the dB spectrograms with the training set's mean and std.
Measured (held-out accuracy on 1000 new clips, 300 steps): 0.16 vs 1.00; seeds + 1000:
0.15 vs 1.00.
"""
import torch
import torch.nn.functional as F

import nndebug as nd
from benchmarks.real_bugs._audio_beginner import (SpectrogramCNN, accuracy, power_mel,
                                                  standardise, to_db)

TITLE = "Can't reproduce your accuracy for Urbansound8K dataset"
LINK = "https://github.com/karolpiczak/paper-2015-esc-convnet/issues/7"
EXPECTED = ("UNNORMALIZED_INPUTS", "DEAD_RELU")
STEPS = 300
BATCH = 32


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    power, y = power_mel(3000, seed=0)
    power_test, y_test = power_mel(1000, seed=1)
    x, x_test = to_db(power), to_db(power_test)              # -80 .. 0 dB
    if fixed:
        x, x_test = standardise(x, x_test)
    # BUG when not fixed: the dB values go in unscaled
    x, x_test = x[:, None], x_test[:, None]
    model = SpectrogramCNN()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            rows = torch.randint(0, len(x), (BATCH,))
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x[rows]), y[rows])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_accuracy = accuracy(model, x_test, y_test)
    return mon

"""A spectrogram LSTM trained on the raw mel power spectrogram: no log (dB) compression and
no standardisation. Mel power spans several orders of magnitude (a clip 15 dB louder is 30x
bigger), most bins are near 0 and a few are huge, so the LSTM's gates saturate on loud clips
and see nothing on quiet ones; accuracy stays near chance.

Reported: "RNN/LSTM networks on spectrograms underfitting massively - is the CNN encoder a
prerequisite" - https://imathworks.com/cv/rnn-lstm-networks-on-spectrograms-underfitting-massively-is-the-cnn-encoder-a-prerequisite
(FSDD digits, librosa mel-spectrograms (80, 16) transposed to (16, 80) and fed to a Keras
LSTM(128) -> Dense -> softmax; "underfitting a lot", train and validation accuracy
"fluctuates among the same exact values" around 0.10, i.e. chance; the mel spectrograms are
fed as computed, with no dB conversion or scaling). Here 6 synthetic classes of 20-band x
16-frame mel power spectrograms (a class is a spectral envelope, each clip has its own
loudness), frames as the time steps of an LSTM(64) -> Linear, Adam 1e-3, batch 32.
Fix: ``power_to_db`` then standardise with the training set's statistics.
Measured (held-out accuracy on 1000 new clips, 300 steps): 0.35 vs 1.00; seeds + 1000:
0.37 vs 1.00.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._audio_beginner import accuracy, power_mel, standardise, to_db

TITLE = ("RNN/LSTM networks on spectrograms underfitting massively - is the CNN encoder a "
         "prerequisite")
LINK = ("https://imathworks.com/cv/rnn-lstm-networks-on-spectrograms-underfitting-massively-"
        "is-the-cnn-encoder-a-prerequisite")
EXPECTED = ("UNNORMALIZED_INPUTS",)
STEPS = 300
BATCH = 32


class FrameLSTM(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(20, 64, batch_first=True)
        self.out = nn.Linear(64, 6)

    def forward(self, x):                      # (B, frames, mels)
        _, (h, _) = self.lstm(x)
        return self.out(h[-1])


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    power, y = power_mel(3000, seed=0)
    power_test, y_test = power_mel(1000, seed=1)
    if fixed:
        x, x_test = standardise(to_db(power), to_db(power_test))
    else:
        x, x_test = power, power_test          # BUG: raw mel power, no log, no scaling
    x, x_test = x.transpose(1, 2), x_test.transpose(1, 2)    # (clips, frames, mels)
    model = FrameLSTM()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
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

"""A hand-written label-smoothing loss that forgets the padding: every position of the padded
batch, the padded tail included, gets a smoothed target (0.9 on its id, the rest spread over
the vocabulary) and counts in the loss. Over 40% of the targets are the padding id, which the
model is trained to predict, and the loss partly measures how well it predicts padding.

Reported: "Smoothing loss bug fix" - https://github.com/k-tahiro/bert-summarizer/pull/41
("Previously we use OpenNMT's LabelSmoothingLoss class and this class ignores padding
position in loss calculation ... current LabelSmoothingLoss simply calculate loss with
smoothing and does not consider the padding. This PR makes BertSumAbsDecoder to calculate
loss only for valid positions."). Here a character LSTM language model over the sonnets'
verse lines, padded at the end with id 0, trained with such a loss (KL divergence to the
smoothed rows, summed and divided by the number of positions). Fix: drop the padded
positions from the loss (and divide by the real tokens).

Measured (120 steps, the real characters of 60 held-out lines): the bug's cross-entropy 2.33
nats per character against the fixed twin's 2.31, and it gives the padding id 1.3% of the
probability at real characters (0.7% of them predicted as padding) against 0.2% (none).
"""
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

import nndebug as nd
from benchmarks.real_bugs._common import padded_lines

TITLE = "Smoothing loss bug fix"
LINK = "https://github.com/k-tahiro/bert-summarizer/pull/41"
EXPECTED = ("PADDING_NOT_MASKED",)
STEPS = 120
PAD = 0
HELD_OUT = 60


class CharLSTM(nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.embed = nn.Embedding(vocab, 32)
        self.lstm = nn.LSTM(32, 64, batch_first=True)
        self.head = nn.Linear(64, vocab)

    def forward(self, ids):
        out, _ = self.lstm(self.embed(ids))
        return self.head(out)


class LabelSmoothingLoss(nn.Module):
    def __init__(self, vocab, smoothing=0.1, ignore_padding=False):
        super().__init__()
        self.vocab, self.smoothing, self.ignore_padding = vocab, smoothing, ignore_padding

    def forward(self, logits, targets):
        logits, targets = logits.reshape(-1, self.vocab), targets.reshape(-1)
        if self.ignore_padding:
            keep = targets != PAD
            logits, targets = logits[keep], targets[keep]
        smoothed = torch.full_like(logits, self.smoothing / (self.vocab - 1))
        smoothed.scatter_(1, targets.unsqueeze(1), 1 - self.smoothing)
        # BUG (ignore_padding=False): the padded positions are scored like real ones
        return F.kl_div(F.log_softmax(logits, -1), smoothed, reduction="sum") / len(targets)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    lines, vocab = padded_lines()
    train, held_out = lines[:-HELD_OUT], lines[-HELD_OUT:]
    model = CharLSTM(vocab)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    loss_fn = LabelSmoothingLoss(vocab, ignore_padding=fixed)
    rng = np.random.default_rng(0)
    with nd.watch(model, optimizer, **watch) as mon:
        for _ in range(steps):
            batch = train[torch.from_numpy(rng.choice(len(train), 32, replace=False))]
            optimizer.zero_grad()
            loss = loss_fn(model(batch[:, :-1]), batch[:, 1:])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        targets = held_out[:, 1:]
        logits = model(held_out[:, :-1])
        real = F.cross_entropy(logits.transpose(1, 2), targets, reduction="none")
        mon.real_loss = round(float(real[targets != PAD].mean()), 3)
        pad_probability = logits.softmax(-1)[..., PAD][targets != PAD]
        predicted_pad = (logits.argmax(-1) == PAD)[targets != PAD]
        mon.measure = {
            "pad_probability_at_real_characters": round(float(pad_probability.mean()), 3),
            "pad_predicted_at_real_characters": round(float(predicted_pad.float().mean()), 3)}
    return mon

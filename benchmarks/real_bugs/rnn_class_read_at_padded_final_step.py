"""A recurrent text classifier fed end-padded batches whose prediction is taken from the
output at the LAST position of the padded batch (``outputs[:, -1]``). For every sentence
shorter than the batch's longest that position is padding: the classifier reads the
state after the network has run through a stretch of pad steps (here up to 36 of them),
and how long the stretch is depends on the sentence's neighbours in the batch. Nothing
errors, the loss falls (the longest sentences of each batch are read right), and held-out
accuracy stays far from what the same network reaches reading each sentence's own last
word.

Reported: "A question about lstm.py" - https://github.com/thtrieu/qclass_dl/issues/1 (a
reader replaced the repository's selection of each sentence's last real output by
``output = outputs[-1]`` and got "terrible result", guessing it was the output of the
``<PAD/>`` word; the author confirmed it: with padded batches the last output must be
gathered at each sentence's real length). Here four-topic sentences of 4 to 40 words
(benchmarks/real_bugs/_txt164.py), padded to the batch's longest with id 0 (a zero
embedding), an embedding + LSTM (as in the report) + linear classifier, Adam. Fix: the
output at position ``length - 1`` of each sentence.

Measured (accuracy on 600 held-out sentences, padded to their batch's longest in batches
of 64 as in training): seed 0, 0.74 for the bug against 0.95 for the fixed twin; seeds
shifted by 1000, 0.52 against 0.96. (A GRU in the LSTM's place learned to carry its state
across the padding: 0.96 against 0.95, no harm.)
"""
import numpy as np
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._txt164 import TOPICS, WORDS, pad, sentences

TITLE = "A question about lstm.py"
LINK = "https://github.com/thtrieu/qclass_dl/issues/1"
EXPECTED = ("PADDING_LEAK",)
STEPS = 250


class Classifier(nn.Module):
    def __init__(self, fixed, dim=32):
        super().__init__()
        self.fixed = fixed
        self.embed = nn.Embedding(WORDS + 1, dim, padding_idx=0)
        self.lstm = nn.LSTM(dim, dim, batch_first=True)
        self.out = nn.Linear(dim, TOPICS)

    def forward(self, ids):
        outputs, _ = self.lstm(self.embed(ids))
        if self.fixed:     # each sentence's own last word
            lengths = (ids != 0).sum(1)
            last = outputs[torch.arange(len(ids)), lengths - 1]
        else:              # BUG: the batch's last position, padding for shorter sentences
            last = outputs[:, -1]
        return self.out(last)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    texts, labels = sentences(2000, rng, topical=0.3)
    test_texts, test_labels = sentences(600, rng, topical=0.3)
    model = Classifier(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for step in range(steps):
            pick = rng.integers(0, len(texts), 64)
            ids, _ = pad([texts[i] for i in pick])
            loss = nn.functional.cross_entropy(model(ids), labels[torch.from_numpy(pick)])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    correct = 0
    with torch.no_grad():
        for start in range(0, len(test_texts), 64):
            ids, _ = pad(test_texts[start:start + 64])
            predicted = model(ids).argmax(1)
            correct += (predicted == test_labels[start:start + 64]).sum().item()
    mon.held_out_accuracy = correct / len(test_texts)
    return mon

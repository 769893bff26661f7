"""A digits classifier trained through the Trainer on a STREAMED dataset (an
``IterableDataset``) whose shards were written one class after another. The Trainer shuffles
only map-style datasets (through its sampler); an iterable one is read in the order it
yields, so every batch holds one class, the classes come in the same order at every pass,
and each stretch of steps drags the model onto the class it is seeing. Nothing errors and
the loss of each batch falls quickly (one class at a time is easy); the model that comes
out is pulled toward the classes the stream ended with.

Reported: "Iterating a streaming dataset correctly in random order" -
https://github.com/huggingface/datasets/issues/8015 (a dataset loaded with
``streaming=True`` as its page recommends is iterated shard by shard in stored order, and
"for training to work properly it is considered good practice ... to sample the dataset
randomly"; with a stream the sampling is up to the user: shuffle the shard order and mix
through a buffer, what ``IterableDataset.shuffle(seed, buffer_size)`` does). Here: the 8x8
digits, 1,400 training rows in 10 shards (one per class, stored 0 to 9), streamed through
the Trainer to an MLP, AdamW 1e-3, batch 32, about 7 passes. Fix: the stream shuffled -
shard order drawn anew each pass, rows mixed through a 500-row buffer.

Measured (held-out accuracy on the other 397 digits): seed 0, 0.74 for the bug against
0.88 for the fixed twin; seeds shifted by 1000, 0.71 against 0.89.
"""
import random

import torch

from benchmarks.real_bugs._common import classification
from benchmarks.real_bugs._hft145 import accuracy, train

TITLE = "Iterating a streaming dataset correctly in random order"
LINK = "https://github.com/huggingface/datasets/issues/8015"
EXPECTED = ("BATCHES_OF_ONE_CLASS",)
STEPS = 300
BUFFER = 500


class ShardStream(torch.utils.data.IterableDataset):
    """Rows streamed shard by shard; ``shuffle_seed``: shard order and a buffer shuffle
    drawn anew each pass (as an iterable dataset's ``shuffle``), else the stored order."""

    def __init__(self, shards, shuffle_seed=None):
        self.shards, self.shuffle_seed, self.passes = shards, shuffle_seed, 0

    def __iter__(self):
        self.passes += 1
        order = list(range(len(self.shards)))
        if self.shuffle_seed is None:
            for s in order:
                yield from self.shards[s]
            return
        rng = random.Random(self.shuffle_seed + self.passes)
        rng.shuffle(order)
        buffer = []
        for s in order:
            for row in self.shards[s]:
                if len(buffer) < BUFFER:
                    buffer.append(row)
                    continue
                i = rng.randrange(BUFFER)
                yield buffer[i]
                buffer[i] = row
        rng.shuffle(buffer)
        yield from buffer


class DigitNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(),
                                       torch.nn.Linear(64, 10))

    def forward(self, x, labels=None):
        logits = self.net(x)
        out = {"logits": logits}
        if labels is not None:
            out["loss"] = torch.nn.functional.cross_entropy(logits, labels)
        return out


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    order = torch.randperm(len(x))
    train_at, test_at = order[:1400], order[1400:]
    shards = [[{"x": x[i], "labels": y[i]} for i in train_at.tolist() if y[i] == c]
              for c in range(10)]
    seed = int(torch.randint(0, 2 ** 31, ()).item())
    stream = ShardStream(shards, shuffle_seed=seed if fixed else None)
    model = DigitNet()
    trainer, callback = train(model, steps, stream, watch)
    model.eval()
    with torch.no_grad():
        mon = callback.monitor
        mon.held_out_accuracy = accuracy(model(x[test_at])["logits"], y[test_at])
    return mon

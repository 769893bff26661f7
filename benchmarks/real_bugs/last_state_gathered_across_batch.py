"""The state at each line's last character is looked up in a sequence-first RNN output,
``(time, batch, hidden)``, with ``h[positions][0]``: indexing the time axis with every
sample's position gives a ``(batch, batch, hidden)`` table (each position, read in every
sample) and ``[0]`` keeps the first sample's position for all of them. Every line is read
at the first line's end: earlier than its own end, or after it, through the padding.

Reported: "decoder looking up the next position" -
https://github.com/MichelDeudon/neural-combinatorial-optimization-rl-tensorflow/issues/5
(``new_decoder_input = tf.gather(self.h, position)[0]``: "since we are doing the lookup on
a batch of sequence, we should use tf.batch_gather so that we gather independently for
each instance in the batch. I believe using tf.gather with [0] won't achieve what it is
intended to do"; the thread's example gathers a (3, 3, 2) table from a batch of 3).
Here the sonnets' verse lines, padded with id 0, run through a GRU (time first),
labelled by whether they end in a comma, classified from the state at the last character.
Fix: one position per sample, ``h[positions, torch.arange(batch)]``.

How watch finds it: the lookup is an integer index, so no gradient crosses samples,
and changing another line's characters (not its length) moves nothing; but the same lines
run in reverse order get other outputs (the first line, whose end everyone is read at,
changed), first after 'rnn': BATCH_MIXING (place in batch).
"""
import torch
from torch import nn

from benchmarks.real_bugs._common import padded_lines, train_watched

TITLE = "decoder looking up the next position"
LINK = "https://github.com/MichelDeudon/neural-combinatorial-optimization-rl-tensorflow/issues/5"
EXPECTED = ("BATCH_MIXING",)
STEPS = 150


class LastStateClassifier(nn.Module):
    def __init__(self, vocab, per_sample_lookup, dim=32):
        super().__init__()
        self.per_sample_lookup = per_sample_lookup
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        self.rnn = nn.GRU(dim, dim)                  # time first, as in the report
        self.classifier = nn.Linear(dim, 2)

    def forward(self, ids):                          # (B, T), 0 pads
        last = (ids != 0).sum(1) - 1                 # each line's last character
        h, _ = self.rnn(self.embed(ids.t()))         # (T, B, dim)
        if self.per_sample_lookup:
            state = h[last, torch.arange(ids.shape[0])]
        else:
            state = h[last][0]                       # BUG: every line read at line 0's end
        return self.classifier(state)


def line_batches(ids, labels, steps, batch_size=32, seed=0):
    g = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        rows = torch.randint(0, len(ids), (batch_size,), generator=g)
        batch = ids[rows]
        longest = int((batch != 0).sum(1).max())
        yield batch[:, :longest], labels[rows]       # padded to the batch's longest line


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = padded_lines()
    lengths = (ids != 0).sum(1)
    last = ids[torch.arange(len(ids)), lengths - 1]
    comma = ids.unique()[6]                   # id 0 pads; then " !'()," in character order
    labels = (last == comma).long()
    model = LastStateClassifier(vocab, per_sample_lookup=fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, optimizer, nn.functional.cross_entropy,
                         line_batches(ids, labels, steps), **watch)

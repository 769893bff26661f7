"""A character-level RNN whose loss adds up the cross-entropy of every time step of the
unrolled sequence (each step's loss averaged over the batch, then summed over the steps)
instead of averaging them: the gradient grows linearly with the sequence length, 64 times
here, and a learning rate chosen for a per-character loss is 64 times too large. Every
update runs at the clipping bound; the loss jumps above its starting value early on, then
the model rushes into memorising the (small) training text: its training loss per
character ends below the twin's while its held-out loss ends far worse.

Reported: "Gradient magnitute depends on seq_length" -
https://github.com/karpathy/char-rnn/issues/70 (training on longer sequences "is very
unstable and requires a ridiculously small learning rate"; the gradient norm grows about
linearly with seq_length, 3.0 at 10 steps, 105 at 500; the maintainer: "This is in fact a
bug. The loss should be normalized"). Here a GRU next-character model (embedding 32,
hidden 64) on the sonnets, windows of 64 characters, batches of 16, plain SGD at lr 1.0 (a
rate for a per-character mean), gradients clipped to norm 5, 200 steps. (char-rnn's own
RMSprop divides most of the scale out; under plain SGD the "ridiculously small learning
rate" the reporter needed is what the sum asks for.)

Fix: divide the summed loss by the sequence length (the mean over time steps).

Measured (held-out next-character cross-entropy, nats, on the last 10% of the text):
3.256 with the bug, 2.215 fixed; seeds + 1000: 3.344 vs 2.270.
"""
import torch
import torch.nn.functional as F
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._common import characters, text_windows

TITLE = "Gradient magnitute depends on seq_length"
LINK = "https://github.com/karpathy/char-rnn/issues/70"
EXPECTED = ("LR_TOO_HIGH", "LOSS_DIVERGING", "EXPLODING_GRADIENTS", "NAN_LOSS")
STEPS = 200
LENGTH = 64


class CharRNN(nn.Module):
    def __init__(self, vocab, embed=32, hidden=64):
        super().__init__()
        self.embed = nn.Embedding(vocab, embed)
        self.rnn = nn.GRU(embed, hidden, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, ids):
        h, _ = self.rnn(self.embed(ids))
        return self.out(h)


@torch.no_grad()
def held_out_loss(model, ids, length=LENGTH):
    model.eval()
    windows = ids[:len(ids) // (length + 1) * (length + 1)].view(-1, length + 1)
    logits = model(windows[:, :-1])
    model.train()
    loss = F.cross_entropy(logits.transpose(1, 2), windows[:, 1:]).item()
    return loss if loss == loss else float("inf")


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    ids, vocab = characters()
    cut = int(len(ids) * 0.9)
    train, held = ids[:cut], ids[cut:]
    model = CharRNN(vocab)
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    with nd.watch(model, optimizer, **watch) as mon:
        for window in text_windows(train, steps, batch_size=16, length=LENGTH, seed=0):
            logits = model(window[:, :-1])
            loss = 0
            for t in range(LENGTH):                 # each step's loss, averaged over the batch
                loss = loss + F.cross_entropy(logits[:, t], window[:, t + 1])
            if fixed:
                loss = loss / LENGTH                # the per-character mean
            # BUG (fixed=False): the sum over the 64 steps is backpropagated as it is
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            optimizer.step()
            mon.step(loss)
    mon.held_out_loss = held_out_loss(model, held)
    return mon

"""The episodic memory of a Dynamic Memory Network (DMN+) written by hand: for each fact,
the attention gate is scored from [f * q, f * m, |f - q|, |f - m|] by a two-layer network,
laid out as a (1, batch) row, and ``tf.nn.softmax`` normalises that row - over the BATCH.
Each fact's gates sum to one across the questions of the mini-batch instead of each
question's gates summing to one across its facts; with 64 questions a gate is about 1/64,
the attention GRU (h = g * h~ + (1 - g) * h) hardly moves, and which fact a question
attends to depends on the other questions in the batch. It trains; the loss falls.

Reported: "softmax in def attention() is wrong?" -
https://github.com/therne/dmn-tensorflow/issues/6 ("l2 = tf.nn.softmax(l2) is performed on
batch/N dimension but in paper ... formula (10), the softmax should be performed on
Fact/F dimension"; the reporter's fix packs the gates of all the facts and takes
``tf.nn.softmax(gs, dim=0)``; a later reply: "Yes. In the paper ..."). Here the episode
module (fact and question vectors of 64 units, the gate network, the attention GRU over the
facts, one pass, a ReLU memory update and a linear answer) reads "stories" of 6 facts - the
facts are digits encoded by a linear layer and tanh, one of them flagged - with one
question, a learned vector ("which digit is flagged?"), and answers the flagged digit's
class (benchmarks/real_bugs/_attn.py). Fix: the gates of all the facts stacked and the
softmax taken over the facts.

Measured (300 steps of 64 stories, Adam 3e-3; held-out accuracy on 512 stories): seed 0,
0.084 with the bug against 0.895 for the fixed twin; seeds shifted by 1000, 0.127 against
0.924 (the held-out stories are scored in one batch of 512, over which the bug's gates
are then spread).
"""
import torch
from torch import nn

import nndebug as nd
from benchmarks.real_bugs._attn import FEATURES, digits, held_out, sequences

TITLE = "softmax in def attention() is wrong?"
LINK = "https://github.com/therne/dmn-tensorflow/issues/6"
EXPECTED = ("BATCH_MIXING",)
STEPS = 300
FACTS = 6
D = 64


class AttnGRU(nn.Module):
    """The attention GRU cell: the update gate replaced by the attention gate g."""
    def __init__(self, d):
        super().__init__()
        self.Wr, self.Ur = nn.Linear(d, d), nn.Linear(d, d, bias=False)
        self.W, self.U = nn.Linear(d, d), nn.Linear(d, d, bias=False)

    def forward(self, f, h, g):
        r = torch.sigmoid(self.Wr(f) + self.Ur(h))
        h_tilde = torch.tanh(self.W(f) + r * self.U(h))
        return g * h_tilde + (1 - g) * h


class DMN(nn.Module):
    def __init__(self, fixed):
        super().__init__()
        self.fixed = fixed
        self.input_module = nn.Sequential(nn.Linear(FEATURES, D), nn.Tanh())
        self.question = nn.Parameter(torch.randn(D) / D ** 0.5)
        self.l1 = nn.Linear(4 * D, D)
        self.l2 = nn.Linear(D, 1)
        self.gru = AttnGRU(D)
        self.memory_update = nn.Linear(3 * D, D)
        self.answer = nn.Linear(D, 10)

    def gate_score(self, f, q, m):
        vec = torch.cat([f * q, f * m, (f - q).abs(), (f - m).abs()], dim=1)   # (N, 4d)
        return self.l2(torch.tanh(self.l1(vec))).t()                            # (1, N)

    def forward(self, items):
        facts = self.input_module(items)                                       # (N, F, d)
        q = self.question.expand(len(items), -1)
        m = q
        scores = [self.gate_score(facts[:, t], q, m) for t in range(FACTS)]
        if self.fixed:
            gates = torch.softmax(torch.cat(scores), dim=0).split(1)           # over facts
        else:
            gates = [torch.softmax(s, dim=-1) for s in scores]   # BUG: over the batch
        state = torch.zeros_like(q)
        for t in range(FACTS):
            state = self.gru(facts[:, t], state, gates[t].t())
        m = torch.relu(self.memory_update(torch.cat([m, state, q], dim=1)))
        return self.answer(m)


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    (x, y), (xt, yt) = digits()
    model = DMN(fixed)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for items, _, labels in sequences(x, y, steps, min_len=FACTS, max_len=FACTS):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(items), labels)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    model.eval()
    with torch.no_grad():
        items, _, labels = held_out(xt, yt, min_len=FACTS, max_len=FACTS)
        mon.accuracy = float((model(items).argmax(1) == labels).float().mean())
    return mon

"""Shared pieces of real-bug batch 200 (neural architecture search): an RL architecture
controller and the search problem it is scored on.

The controller is the NAS/ENAS kind, shrunk: an LSTM cell that emits one decision per step
(which of OPERATIONS candidate operations a layer of the child network uses), reading an
embedding of its previous decision. The search problem stands in for training each child
network: a child's validation accuracy is BASE_ACCURACY plus, for each decision, what the
chosen operation adds (drawn once per run, 0 to GAIN), plus evaluation noise of sd NOISE
(a few hundred validation images). What the search found is read from the architecture the
controller picks greedily at the end: the share of the accuracy gap from the worst to the
best architecture it closes, and how many of its decisions pick the best operation. Call
these inside a case's ``run`` so the seeds it sets (and the benchmark's seed shift) reach
every draw."""
import torch
from torch import nn
from torch.distributions import Categorical

DECISIONS, OPERATIONS = 6, 4
BASE_ACCURACY, GAIN, NOISE = 0.70, 0.04, 0.02
HIDDEN = 32


def operation_gains():
    """(DECISIONS, OPERATIONS): the accuracy each candidate operation adds."""
    return torch.rand(DECISIONS, OPERATIONS) * GAIN


def child_accuracy(gains, arch):
    """The noisy validation accuracy of the child built from ``arch`` (DECISIONS ints)."""
    noise = NOISE * torch.randn(())
    return (BASE_ACCURACY + gains[torch.arange(DECISIONS), arch].sum() + noise).item()


class Controller(nn.Module):
    """An LSTM cell emitting one softmax over the candidate operations per decision."""

    def __init__(self):
        super().__init__()
        self.start = nn.Parameter(torch.zeros(1, HIDDEN))
        self.embed = nn.Embedding(OPERATIONS, HIDDEN)
        self.cell = nn.LSTMCell(HIDDEN, HIDDEN)
        self.heads = nn.ModuleList(nn.Linear(HIDDEN, OPERATIONS) for _ in range(DECISIONS))

    def forward(self, choose):
        """Roll the controller out; ``choose(logits, decision)`` returns the operation taken
        at each decision (fed back as the next input). Returns the per-decision log-softmax
        rows (DECISIONS, OPERATIONS) and the decisions taken."""
        inp, state = self.start, None
        rows, taken = [], []
        for d in range(DECISIONS):
            state = self.cell(inp, state)
            logits = self.heads[d](state[0])[0]
            op = choose(logits, d)
            rows.append(torch.log_softmax(logits, dim=0))
            taken.append(op)
            inp = self.embed(torch.tensor([op]))
        return torch.stack(rows), torch.tensor(taken)


def sample(logits, _):
    return int(Categorical(logits=logits).sample())


def greedy(logits, _):
    return int(logits.argmax())


def search_result(controller, gains):
    """(share of the worst-to-best accuracy gap closed, decisions on the best operation) for
    the architecture the controller picks greedily."""
    with torch.no_grad():
        _, arch = controller(greedy)
    rows = torch.arange(DECISIONS)
    best, worst = gains.max(dim=1).values.sum(), gains.min(dim=1).values.sum()
    closed = ((gains[rows, arch].sum() - worst) / (best - worst)).item()
    return round(closed, 3), int((arch == gains.argmax(dim=1)).sum())

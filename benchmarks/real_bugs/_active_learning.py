"""Pool-based active learning on the 8x8 digits, shared by real-bug batch 143's cases.

A seeded split of the digits into an unlabelled pool (1,300 rows) and a held-out set (the
other 497); a few random pool rows start labelled. Each round the model is retrained from
scratch (weights re-initialised, the optimizer's state cleared) for ``ROUND_STEPS`` steps on
mini-batches of the labelled rows, then scores the pool and queries a batch of rows whose
labels join the labelled set. The cases write their own rounds (the bug lives there); the
pieces here are the plain parts.
"""
import torch

from benchmarks.real_bugs._common import classification

POOL_ROWS = 1300
START_LABELS, QUERY, ROUNDS = 20, 10, 10
ROUND_STEPS, BATCH = 60, 32
STEPS = (ROUNDS + 1) * ROUND_STEPS        # one training per round, the last after the queries


def split(rng):
    """(pool_x, pool_y, test_x, test_y, first_labelled): the digits shuffled by ``rng``, and
    START_LABELS random pool positions to start with."""
    x, y = classification()
    order = torch.from_numpy(rng.permutation(len(x)))
    pool, test = order[:POOL_ROWS], order[POOL_ROWS:]
    first = rng.choice(POOL_ROWS, START_LABELS, replace=False)
    return x[pool], y[pool], x[test], y[test], [int(i) for i in first]


class Net(torch.nn.Module):
    """64-128-10 MLP, with dropout before the output layer when ``dropout`` > 0."""

    def __init__(self, dropout=0.0):
        super().__init__()
        self.hidden = torch.nn.Linear(64, 128)
        self.drop = torch.nn.Dropout(dropout)
        self.out = torch.nn.Linear(128, 10)

    def forward(self, x):
        return self.out(self.drop(torch.relu(self.hidden(x))))


def restart(model, optimizer):
    """Retrain from scratch: fresh weights and an optimizer without momentum state."""
    for module in model.modules():
        if isinstance(module, torch.nn.Linear):
            module.reset_parameters()
    optimizer.state.clear()


def train_round(model, optimizer, x, y, mon, steps=ROUND_STEPS):
    """``steps`` Adam steps on random mini-batches of the labelled rows (x, y)."""
    model.train()
    for _ in range(steps):
        pick = torch.randint(0, len(x), (min(BATCH, len(x)),))
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x[pick]), y[pick])
        loss.backward()
        optimizer.step()
        mon.step(loss)


@torch.no_grad()
def entropy(model, x):
    """Predictive entropy of each row (the model in eval mode): high = uncertain."""
    model.eval()
    p = torch.softmax(model(x), dim=1)
    return -(p * torch.log(p.clamp_min(1e-12))).sum(dim=1)


@torch.no_grad()
def accuracy(model, x, y):
    model.eval()
    return float((model(x).argmax(dim=1) == y).float().mean())

"""Pieces the beginner tabular binary-classifier reports (batch 232) share (kept small: each
case shows its bug): a synthetic passenger/customer table in raw units (age, fare or
balance, counts, 0/1 flags) whose 0/1 label follows a noisy non-linear score, split into a
training and a held-out part; standardisation with the training rows' statistics; a first
small MLP with one output; held-out accuracy and balanced accuracy."""
import torch
from torch import nn

# raw-unit columns: (mean, std) of each numeric feature, as a first tutorial's CSV holds them
COLUMNS = ((38.0, 14.0),     # age in years
           (90.0, 60.0),     # fare / monthly charges
           (1.5, 1.2),       # siblings / products held
           (2.2, 0.8),       # class / contract type 1-3
           (650.0, 95.0),    # credit score
           (40.0, 25.0))     # tenure in months


def tabular(rows=1500, held_out=500, positive_rate=0.4):
    """(x_train, y_train, x_test, y_test): float32 features in raw units (six numeric
    columns plus two 0/1 flags), float32 labels of shape (N, 1) in {0, 1}; about
    ``positive_rate`` of the rows positive. Drawn from torch's generator."""
    z = torch.randn(rows, len(COLUMNS))
    flags = (torch.rand(rows, 2) < 0.5).float()
    score = (1.2 * z[:, 0] - 1.0 * z[:, 1] + 0.8 * z[:, 3] * z[:, 4] - 0.9 * z[:, 5]
             + 1.5 * (flags[:, 0] - 0.5) + 0.6 * torch.tanh(2 * z[:, 2])
             + 0.4 * torch.randn(rows))
    cut = torch.quantile(score, 1 - positive_rate)
    y = (score > cut).float().unsqueeze(1)
    mean = torch.tensor([m for m, _ in COLUMNS])
    std = torch.tensor([s for _, s in COLUMNS])
    x = torch.cat([z * std + mean, flags], 1)
    return x[:-held_out], y[:-held_out], x[-held_out:], y[-held_out:]


def standardise(x_train, *others):
    """Each column scaled with the training rows' mean and std."""
    mean, std = x_train.mean(0), x_train.std(0) + 1e-6
    return tuple((x - mean) / std for x in (x_train,) + others)


def first_mlp(inputs=8, hidden=32, hidden_act=nn.ReLU, outputs=1):
    return nn.Sequential(nn.Linear(inputs, hidden), hidden_act(), nn.Linear(hidden, hidden),
                         hidden_act(), nn.Linear(hidden, outputs))


def minibatches(x, y, steps, size=64):
    """``steps`` shuffled minibatches (epochs reshuffled by torch's generator)."""
    out = []
    while len(out) < steps:
        order = torch.randperm(len(x))
        for i in range(0, len(x) - size + 1, size):
            out.append((x[order[i:i + size]], y[order[i:i + size]]))
    return out[:steps]


def accuracy(predicted, y):
    """Share of rows whose 0/1 prediction (bool or 0/1 tensor of y's shape) matches y."""
    return (predicted.float() == y).float().mean().item()


def balanced_accuracy(predicted, y):
    """Mean of the recall on the positives and the recall on the negatives."""
    p = predicted.float()
    pos, neg = y == 1, y == 0
    return 0.5 * ((p[pos] == 1).float().mean() + (p[neg] == 0).float().mean()).item()

"""Shared pieces of real-bug batch 230 (beginner regression on small tabular data from first
tutorials): a synthetic California-style housing table in raw units (median income in tens
of thousands, house age in years, total rooms and population in counts, latitude in degrees;
the price in dollars), train/held-out splits, standardisation with the training rows'
statistics, mini-batches and R^2."""
import numpy as np
import torch

COLUMNS = ("median_income", "house_age", "total_rooms", "population", "latitude")


def houses(n=1000, seed=0):
    """(x, price): x (n, 5) float32 in raw units, price (n,) float32 in dollars."""
    rng = np.random.default_rng(seed)
    income = rng.lognormal(1.3, 0.45, n)
    age = rng.uniform(1, 52, n)
    rooms = rng.lognormal(7.6, 0.6, n)
    population = rooms * rng.uniform(0.35, 1.3, n)
    latitude = rng.uniform(32.5, 42.0, n)
    price = (60000 + 42000 * income - 2500 * (income - 4) ** 2 + 900 * age
             - 12000 * np.abs(latitude - 36) + 40000 * np.tanh(rooms / population - 1.3)
             + rng.normal(0, 25000, n))
    price = np.maximum(price, 15000)
    x = np.stack([income, age, rooms, population, latitude], axis=1)
    return torch.from_numpy(x.astype(np.float32)), torch.from_numpy(price.astype(np.float32))


def split(x, y, held_out=0.2, seed=0):
    """Shuffled (x_train, y_train, x_test, y_test)."""
    order = torch.from_numpy(np.random.default_rng(seed).permutation(len(x)))
    cut = int(len(x) * (1 - held_out))
    x, y = x[order], y[order]
    return x[:cut], y[:cut], x[cut:], y[cut:]


def standardise(train, *others):
    """``train`` and ``others`` scaled with the training rows' mean and std (per column)."""
    mean, std = train.mean(0), train.std(0)
    return ((train - mean) / std,) + tuple((o - mean) / std for o in others)


def batches(n, steps, batch_size=32, seed=0):
    """``steps`` batches of row indices, reshuffled every epoch."""
    rng = np.random.default_rng(seed)
    done = 0
    while True:
        order = torch.from_numpy(rng.permutation(n))
        for start in range(0, n - batch_size + 1, batch_size):
            yield order[start:start + batch_size]
            done += 1
            if done == steps:
                return


def r2(prediction, target):
    """Coefficient of determination of ``prediction`` (any shape with len(target) rows)."""
    prediction = prediction.detach().reshape(-1).double()
    target = target.reshape(-1).double()
    if not torch.isfinite(prediction).all():
        return float("nan")
    residual = ((target - prediction) ** 2).sum()
    total = ((target - target.mean()) ** 2).sum()
    return round(1 - (residual / total).item(), 3)

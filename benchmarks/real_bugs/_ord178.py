"""Pieces real-bug batch 178 (ordinal, count and survival targets) shares: count targets
made from the 8x8 digits, and the watched loop over shuffled mini-batches."""
import torch

from benchmarks.real_bugs._common import classification, index_batches

HELD_OUT = 397          # the last 397 digits are never trained on (about 22%)


def digit_counts(kind="poisson", dispersion=2.0):
    """x (N, 64), a count per digit whose mean grows with the digit's value
    (0.5 + value), drawn from the torch generator: Poisson, or negative binomial with
    ``dispersion`` as its total_count r (variance mean + mean^2 / r); and the true means."""
    x, y = classification()
    mean = 0.5 + y.float()
    if kind == "poisson":
        counts = torch.poisson(mean)
    else:
        probs = mean / (dispersion + mean)          # torch's convention: mean = r p / (1 - p)
        counts = torch.distributions.NegativeBinomial(
            total_count=torch.full_like(mean, dispersion), probs=probs).sample()
    return x, counts, mean


def train_watched(model, optimizer, loss_fn, x, target, steps, watch, batch_size=64):
    """zero_grad, loss_fn(model(xb), tb), backward, step, mon.step(loss) over shuffled
    batches of the training rows (all but the last HELD_OUT); the closed monitor comes back."""
    import nndebug as nd
    n_train = len(x) - HELD_OUT
    with nd.watch(model, optimizer, **watch) as mon:
        for index in index_batches(n_train, steps, batch_size):
            optimizer.zero_grad()
            loss = loss_fn(model(x[index]), target[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon

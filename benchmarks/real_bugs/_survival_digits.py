"""Right-censored survival data made from the digits, and Harrell's concordance (batch 112).

Each digit image is a subject whose true log-hazard grows with the digit's value: its event
time is exponential with rate exp(h), h = HAZARD_SLOPE * (value - 4.5) / 2.87; an
independent exponential censoring time hides the event for about CENSORED of the subjects.
A model reads the pixels and must rank subjects by risk: Harrell's concordance on held-out
subjects (0.5 = chance) measures how well it does."""
import numpy as np
import torch

from benchmarks.real_bugs._common import classification

HAZARD_SLOPE = 1.5
CENSORING_RATE = 0.6        # [design] about 40% of the subjects censored


def survival(seed=0, censoring_rate=CENSORING_RATE):
    """x (N, 64), duration (N,) float32, event (N,) float32 in {0, 1}, digit value (N,)."""
    x, y = classification()
    rng = np.random.default_rng(seed)
    h = HAZARD_SLOPE * (y.numpy() - 4.5) / 2.87
    event_time = rng.exponential(1.0 / np.exp(h))
    censor_time = rng.exponential(1.0 / censoring_rate, size=len(h))
    duration = np.minimum(event_time, censor_time).astype(np.float32)
    event = (event_time <= censor_time).astype(np.float32)
    return x, torch.from_numpy(duration), torch.from_numpy(event), y


def concordance(risk, duration, event):
    """Harrell's C: of the comparable pairs (i had the event, before j's time), the share
    where i's predicted risk is the higher (ties count a half)."""
    risk, duration, event = (t.detach().reshape(-1).double() for t in (risk, duration, event))
    earlier = (duration[:, None] < duration[None, :]) & (event[:, None] > 0)
    higher = (risk[:, None] > risk[None, :]).double() + 0.5 * (risk[:, None] == risk[None, :]).double()
    return float((higher * earlier).sum() / earlier.sum())


def train_risk_model(x, duration, event, loss_fn, steps, held_out, watch, given_event=None):
    """Train a small risk MLP (64 -> 32 -> 1, Adam 1e-2, batches of the first
    ``len(x) - held_out`` subjects) under ``nd.watch`` on ``loss_fn(risk, durations, event
    flags)`` and return the monitor, with the held-out subjects' concordance (judged on the
    true ``event``) in ``mon.extra``. ``given_event``: the flags the loss is handed, when a
    case hands it others than the true ones."""
    import nndebug as nd
    from torch import nn
    from benchmarks.real_bugs._common import batches

    given = event if given_event is None else given_event
    target = torch.stack([duration, given], dim=1)
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, tb in batches(x[:-held_out], target[:-held_out], steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb).squeeze(1), tb[:, 0], tb[:, 1])
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        risk = model(x[-held_out:]).squeeze(1)
    mon.extra = {"test_concordance": round(concordance(risk, duration[-held_out:],
                                                       event[-held_out:]), 3)}
    return mon

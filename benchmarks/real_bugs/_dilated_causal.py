"""What batch 308's cases (beginner causal dilated convolutions: WaveNet padding, receptive
fields, shifted targets) share: a held-out score that asks each model what generation asks
it - the next sample from the samples so far, nothing after them."""
import torch
from torch.nn import functional as F

CUTS = (36, 44, 52, 60)      # the window ends scored on 64-sample held-out rows


def next_sample_nll(model, rows, cuts=CUTS):
    """Held-out cross-entropy (nats) of the sample after each cut, from the model's output
    at the last position of ``rows[:, :cut + 1]``: the window stops where generation stops,
    so no model can read the sample it predicts."""
    losses = []
    with torch.no_grad():
        for cut in cuts:
            logits = model(rows[:, :cut + 1])[:, :, -1]
            losses.append(F.cross_entropy(logits, rows[:, cut + 1]).item())
    return sum(losses) / len(losses)

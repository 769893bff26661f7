"""Pieces the hand-written ensemble cases of batch 301 share: the digits split and the
scores of an ensemble that averages its members' probabilities."""
import torch
import torch.nn.functional as F

from benchmarks.real_bugs._regularisation_beginner import digits  # noqa: F401


def ensemble_scores(members, xh, yh):
    """(accuracy, mean negative log-likelihood) on held-out rows of the members' averaged
    softmax probabilities, every member in eval mode under no_grad."""
    with torch.no_grad():
        probs = []
        for member in members:
            member.eval()
            probs.append(F.softmax(member(xh), dim=1))
            member.train()
        p = torch.stack(probs).mean(0)
    accuracy = (p.argmax(1) == yh).float().mean().item()
    nll = F.nll_loss(torch.log(p.clamp_min(1e-12)), yh).item()
    return accuracy, nll

"""A Wasserstein autoencoder whose latent penalty - a Sinkhorn divergence between the
batch's codes and samples of the Gaussian prior - is computed by a routine that converts
its inputs to NumPy and hands back a fresh tensor. The returned value has no ``grad_fn``:
added to the reconstruction loss it shifts the loss's level and nothing else, so the
encoder never feels the prior. Training runs, the reconstruction error falls as in any
autoencoder, the penalty is printed and logged every step, and the codes drift wherever
reconstruction puts them - decoding prior samples, the reason for the penalty, gives junk.

Reported: "empirical_sinkhorn_divergence doesn't have a grad_fn" -
https://github.com/PythonOT/POT/issues/393 (the reporter used POT's
``empirical_sinkhorn_divergence`` as a PyTorch loss and got a tensor without a
``grad_fn``; the maintainer found that the function's backend went to NumPy and back,
"losing gradient information", and fixed it to stay in the input's backend in
https://github.com/PythonOT/POT/pull/394). Here: an MLP autoencoder on the 8x8 digits
with a 2-D code, the debiased Sinkhorn divergence (eps 0.1, benchmarks/real_bugs/_ot.py)
between each batch's 64 codes and 64 prior draws, weight 10, Adam. Fix: compute the
divergence on the tensors themselves (the fixed POT), so its gradient reaches the encoder.

Measured (600 steps; on 297 held-out digits: the Sinkhorn divergence between their codes
and as many prior draws, 0 when the codes follow the prior, and the held-out
reconstruction error): seed 0: divergence 0.47 for the bug against 0.064 for the fixed
twin (reconstruction 2.51 against 2.87); seeds shifted by 1000: 0.126 against 0.038
(2.51 against 3.14).
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._common import batches, classification
from benchmarks.real_bugs._ot import sinkhorn_divergence

TITLE = "empirical_sinkhorn_divergence doesn't have a grad_fn"
LINK = "https://github.com/PythonOT/POT/issues/393"
EXPECTED = ("LOSS_TERM_WITHOUT_GRADIENT",)
STEPS = 600
HELD_OUT, CODE, WEIGHT, EPS = 297, 2, 10.0, 0.1


class Autoencoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(),
                                           torch.nn.Linear(64, CODE))
        self.decoder = torch.nn.Sequential(torch.nn.Linear(CODE, 64), torch.nn.ReLU(),
                                           torch.nn.Linear(64, 64))


def numpy_sinkhorn_divergence(x, y, eps):
    """The routine of the report: the inputs go to NumPy and the value comes back as a new
    tensor (in the library, through its NumPy backend)."""
    value = sinkhorn_divergence(torch.from_numpy(x.detach().numpy()),
                                torch.from_numpy(y.detach().numpy()), eps)
    return torch.tensor(value.item())


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    x, y = classification()
    order = torch.randperm(len(x))
    x, y = x[order], y[order]
    model = Autoencoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for xb, _ in batches(x[HELD_OUT:], y[HELD_OUT:], steps):
            codes = model.encoder(xb)
            reconstruction = ((model.decoder(codes) - xb) ** 2).sum(1).mean()
            prior = torch.randn(len(xb), CODE)
            if fixed:
                penalty = sinkhorn_divergence(codes, prior, EPS)
            else:
                penalty = numpy_sinkhorn_divergence(codes, prior, EPS)  # BUG: no grad_fn
            loss = reconstruction + WEIGHT * penalty
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    with torch.no_grad():
        held_out = x[:HELD_OUT]
        codes = model.encoder(held_out)
        mon.held_out_prior_divergence = sinkhorn_divergence(
            codes, torch.randn(len(codes), CODE), EPS).item()
        mon.held_out_reconstruction = ((model.decoder(codes) - held_out) ** 2).sum(1).mean().item()
    return mon

"""An energy-based model trained by denoising score matching whose target has the wrong
sign for what the network gives. The loss differentiates the energy, ``dE/dx`` (which is
minus the model's score, since p is proportional to exp(-E)), and regresses it on the
conditional log-density score of the noised point, ``-noise / sigma^2``. The two
conventions disagree by a sign, so minimising the loss makes ``dE/dx`` point the way
``grad log p`` points: the energy is driven UP where the data is and down away from it.
The loss falls exactly as fast as the correct one (it is the same regression, mirrored),
nothing errors, and a sampler that descends the energy walks away from the data.

Reported: "DenoisingScoreMatching learns an inverted energy" -
https://github.com/soran-ghaderi/torchebm/issues/318 (the maintainer found that the
library's ``compute_score`` returns grad E while the DSM target is grad log p; on a
standard normal the trained energy was lower at (3, 3) than at the origin, while
ContrastiveDivergence, ScoreMatching and SlicedScoreMatching ordered them correctly;
fixed in https://github.com/soran-ghaderi/torchebm/pull/333 by matching grad E against
``+noise / sigma^2``). Here: an MLP energy on a 2-D ring of eight Gaussians
(benchmarks/real_bugs/_energy_models.py), sigma 0.3, Adam. Fix: the target ``noise /
sigma^2`` for the energy's gradient (equivalently, regress ``-dE/dx`` on ``-noise /
sigma^2``).

Measured (400 steps, batch 128, 1,024 held-out points; held-out negative log-likelihood
with the energy normalised on a grid over [-4, 4]^2, and the mean distance to the nearest
mode of 512 points after 200 Langevin steps from uniform noise, 0.32 for the data
themselves): seed 0, NLL 61.3 nats for the bug against 2.71 for the fixed twin, samples
24.1 from a mode against 0.45; seeds shifted by 1000, NLL 54.1 against 2.61, samples 20.6
against 0.46. The energy's output layer has no bias here: a denoising score-matching loss
reads only dE/dx, so such a bias would never get a gradient (with one, watch rightly said
NO_GRADIENT on both runs).
"""
import torch

import nndebug as nd
from benchmarks.real_bugs._energy_models import (Energy, batches, data, energy_gradient,
                                                 held_out_nll, langevin, mode_distance)

TITLE = "DenoisingScoreMatching learns an inverted energy"
LINK = "https://github.com/soran-ghaderi/torchebm/issues/318"
EXPECTED = ("SCORE_TARGET_SIGN_FLIPPED",)
STEPS = 400
SIGMA = 0.3


def run(fixed=False, steps=STEPS, **watch):
    torch.manual_seed(0)
    train, held_out = data()
    model = Energy(out_bias=False)     # DSM reads dE/dx only
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer, **watch) as mon:
        for x in batches(train, steps):
            noise = torch.randn_like(x)
            noised = x + SIGMA * noise
            grad_energy = energy_gradient(model, noised, create_graph=True)
            if fixed:
                target = noise / SIGMA ** 2         # dE/dx = -grad log q(noised | x)
            else:
                target = -noise / SIGMA ** 2        # BUG: grad log q, the score's sign
            loss = 0.5 * SIGMA ** 2 * ((grad_energy - target) ** 2).sum(dim=1).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    mon.held_out_nll = held_out_nll(model, held_out)
    start = torch.rand(512, 2) * 6 - 3
    mon.sample_mode_distance = mode_distance(langevin(model, start, 200, 0.01))
    return mon

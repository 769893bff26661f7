"""Real-bug batch 71 (diffusion and score-based models): DIFFUSION_NOISE_SCALE_WRONG
(``rules/diffusion_noise_scale.py``, read at findings from the kept first training inputs
and the loss targets, ``monitor/diffusion_noise_levels.py``).

Named on its planted case (Ryota-Kawamura/How-Diffusion-Models-Work#1: the noise scaled by
1 - alpha_bar) and on variants (a convolutional denoiser of (N, 1, 8, 8) images under a
cosine schedule, continuous time; the noise scaled by alpha_bar's complement with the
signal left unscaled), and silent on the fixed twin and on forward processes that are
fine: variance exploding (x0 + sigma * noise), a straight-line interpolation, EDM's c_in
preconditioning, latents scaled by 0.18, a denoising autoencoder at one noise level, and
a classifier trained on noise-augmented inputs.
"""
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import diffusion_noise_scaled_by_one_minus_alpha_bar as noise_case  # noqa: E402,E501
from benchmarks.real_bugs._common import batches, classification  # noqa: E402
from nndebug.monitor.diffusion_noise_levels import noise_levels  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
CODE = "DIFFUSION_NOISE_SCALE_WRONG"


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


class _Denoiser(nn.Module):
    def __init__(self, image=False):
        super().__init__()
        self.image = image
        if image:
            self.conv = nn.Sequential(nn.Conv2d(2, 16, 3, padding=1), nn.SiLU(),
                                      nn.Conv2d(16, 1, 3, padding=1))
        else:
            self.net = nn.Sequential(nn.Linear(65, 64), nn.SiLU(), nn.Linear(64, 64))

    def forward(self, x_t, t):
        if self.image:
            level = t.float().view(-1, 1, 1, 1).expand(-1, 1, *x_t.shape[2:])
            return self.conv(torch.cat([x_t, level], dim=1))
        return self.net(torch.cat([x_t, t.float().unsqueeze(1)], dim=1))


def _train(noising, steps=20, image=False, scale=1.0, seed=0):
    """A noise predictor trained on x_t = noising(x0, u, noise) for u ~ U(0, 1) per sample,
    the target being the noise; the monitor comes back."""
    torch.manual_seed(seed)
    x, y = classification(images=image)
    x = (x * 2 - 1) * scale
    model = _Denoiser(image)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer) as mon:
        for x0, _ in batches(x, y, steps):
            u = torch.rand(len(x0))
            noise = torch.randn_like(x0)
            shape = (-1,) + (1,) * (x0.ndim - 1)
            loss = F.mse_loss(model(noising(x0, u.view(shape), noise), u), noise)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def _cosine_alpha_bar(u):
    return torch.cos((u + 0.008) / 1.008 * math.pi / 2).clamp(min=1e-4) ** 2


# --- the planted case and variants ----------------------------------------------------------

def test_planted_noise_scaled_by_the_variance_is_named_and_its_twin_is_silent():
    assert CODE in _codes(noise_case.run(steps=40))
    assert CODE not in _codes(noise_case.run(fixed=True, steps=40))


def test_variant_convolutional_denoiser_cosine_schedule_noise_scaled_by_variance():
    def bug(x0, u, noise):
        ab = _cosine_alpha_bar(u)
        return ab.sqrt() * x0 + (1 - ab) * noise
    assert CODE in _codes(_train(bug, image=True))


def test_variant_signal_scaled_by_alpha_bar_not_its_root():
    # the other slip of the same line: a = alpha_bar, b = sqrt(1 - alpha_bar) (a^2 = (1 - b^2)^2)
    def bug(x0, u, noise):
        ab = _cosine_alpha_bar(u)
        return ab * x0 + (1 - ab).sqrt() * noise
    assert CODE in _codes(_train(bug))


# --- healthy forward processes and look-alikes ----------------------------------------------

@pytest.mark.parametrize("name", ["vp_cosine", "ve", "straight_line", "edm_c_in",
                                  "latents_scaled"])
def test_forward_processes_that_are_fine_stay_silent(name):
    def vp_cosine(x0, u, noise):
        ab = _cosine_alpha_bar(u)
        return ab.sqrt() * x0 + (1 - ab).sqrt() * noise

    def ve(x0, u, noise):
        return x0 + (0.02 * (80 / 0.02) ** u) * noise

    def straight_line(x0, u, noise):
        return (1 - u) * x0 + u * noise

    def edm_c_in(x0, u, noise):
        sigma = 0.02 * (80 / 0.02) ** u
        return (x0 + sigma * noise) / (sigma ** 2 + 0.5 ** 2).sqrt()

    noising = {"vp_cosine": vp_cosine, "ve": ve, "straight_line": straight_line,
               "edm_c_in": edm_c_in, "latents_scaled": vp_cosine}[name]
    scale = 0.18 if name == "latents_scaled" else 1.0
    assert CODE not in _codes(_train(noising, scale=scale))


def test_denoising_autoencoder_at_one_noise_level_is_silent():
    def one_level(x0, u, noise):
        return math.sqrt(0.5) * x0 + (1 - 0.5) * noise     # one b: no family to tell
    assert CODE not in _codes(_train(one_level))


def test_classifier_on_noise_augmented_inputs_is_not_read():
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, 20):
            level = torch.rand(len(xb), 1)
            loss = F.cross_entropy(model(xb * (1 - level) + level ** 2 * torch.randn_like(xb)),
                                   yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert not mon.run.observed.diffusion_noise_levels
    assert CODE not in _codes(mon)


# --- the reader ------------------------------------------------------------------------------

def test_noise_levels_reads_only_standard_normal_targets_of_the_input_shape():
    rng = np.random.default_rng(0)
    x0 = rng.uniform(-1, 1, (64, 64))
    noise = rng.standard_normal((64, 64))
    b = rng.uniform(0.1, 0.9, (64, 1))
    levels = noise_levels(np.sqrt(1 - b * b) * x0 + b * noise, noise)
    assert levels is not None
    assert np.allclose(levels[0], b[:, 0], atol=0.2)
    assert noise_levels(x0, rng.uniform(-1.7, 1.7, (64, 64))) is None      # uniform
    assert noise_levels(x0, 2 * noise) is None                                # not unit
    assert noise_levels(x0[:, :32], noise) is None                            # other shape
    assert noise_levels(x0[:, :10], noise[:, :10]) is None                    # too few values

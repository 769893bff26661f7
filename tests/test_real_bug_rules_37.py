"""Real-bug batch 37 (generative models): a VAE trained without its KL term
(VAE_KL_TERM_MISSING), a VAE drawing its code with the variance as the standard deviation
(VAE_NOISE_SCALED_BY_VARIANCE), and a loss with no floor, from a KL term or a flow's
log-determinant with the wrong sign (LOSS_UNBOUNDED_BELOW). Their fixed twins stay silent,
and so do a VAE parameterised by log sigma with exp(2 s) in its KL, one written with
torch.distributions, one squaring its std in the KL, a NoisyNet-like layer whose noise scale
is a parameter, dropout, and a flow whose negative log-likelihood converges below zero."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import flow_log_det_sign_flipped as flow_sign  # noqa: E402
from benchmarks.real_bugs import vae_kl_log_sigma_sign_flipped as kl_sign  # noqa: E402
from benchmarks.real_bugs import vae_kl_term_left_out as kl_left_out  # noqa: E402
from benchmarks.real_bugs import vae_reparameterised_with_variance as variance_drawn  # noqa: E402,E501
from benchmarks.real_bugs._common import batches, classification  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
MISSING = "VAE_KL_TERM_MISSING"
VARIANCE = "VAE_NOISE_SCALED_BY_VARIANCE"
UNBOUNDED = "LOSS_UNBOUNDED_BELOW"
OURS = {MISSING, VARIANCE, UNBOUNDED}


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


class _Encoder(nn.Module):
    """mu and a raw scale head s; ``draw`` makes z from them."""

    def __init__(self, draw):
        super().__init__()
        self.draw = draw
        self.encoder = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 16))
        self.decoder = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 64))

    def forward(self, x):
        mu, s = self.encoder(x).chunk(2, dim=1)
        return self.decoder(self.draw(mu, s)), mu, s


def _train_vae(draw, kl_of, steps=12):
    torch.manual_seed(0)
    x, y = classification()
    model = _Encoder(draw)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer) as mon:
        for xb, _ in batches(x, y, steps):
            optimizer.zero_grad()
            logits, mu, s = model(xb)
            recon = F.binary_cross_entropy_with_logits(logits, xb, reduction="sum") / len(xb)
            loss = recon + kl_of(mu, s)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_the_kl_term_left_out_is_named_and_its_twin_is_silent():
    assert MISSING in _problems(kl_left_out.run(steps=12))
    assert not _problems(kl_left_out.run(fixed=True, steps=12)) & OURS


def test_the_observation_counts_the_draw_and_its_unread_scale():
    rows = kl_left_out.run(steps=12).run.observed.reparameterisations
    assert [row[1:] for row in rows] == [(1, 1, 0)] * 3
    rows = kl_left_out.run(fixed=True, steps=12).run.observed.reparameterisations
    assert [row[1:] for row in rows] == [(1, 0, 0)] * 3


def test_the_variance_drawn_as_std_is_named_and_its_twin_is_silent():
    assert VARIANCE in _problems(variance_drawn.run(steps=12))
    assert not _problems(variance_drawn.run(fixed=True, steps=12)) & OURS


def test_a_log_sigma_vae_with_exp_2s_in_its_kl_is_silent():
    mon = _train_vae(lambda mu, s: mu + torch.randn_like(mu) * torch.exp(s),
                     lambda mu, s: 0.5 * (torch.exp(2 * s) + mu ** 2 - 1 - 2 * s).sum(1).mean())
    assert mon.run.observed.reparameterisations[0][1] == 1      # the draw is seen
    assert not _problems(mon) & OURS


def test_a_kl_that_squares_exp_s_is_silent():
    mon = _train_vae(lambda mu, s: mu + torch.randn_like(mu) * s.exp(),
                     lambda mu, s: 0.5 * (s.exp() ** 2 + mu ** 2 - 1 - 2 * s).sum(1).mean())
    assert not _problems(mon) & OURS


def test_a_vae_written_with_torch_distributions_is_silent():
    from torch.distributions import Normal, kl_divergence

    def draw(mu, s):
        return Normal(mu, F.softplus(s) + 1e-4).rsample()

    def kl(mu, s):
        posterior = Normal(mu, F.softplus(s) + 1e-4)
        return kl_divergence(posterior, Normal(0.0, 1.0)).sum(1).mean()

    assert not _problems(_train_vae(draw, kl)) & OURS


class _NoisyLinear(nn.Module):
    """A NoisyNet layer: weight = mu + sigma * eps, sigma a parameter with no penalty."""

    def __init__(self, inputs, outputs):
        super().__init__()
        self.mu = nn.Parameter(torch.randn(outputs, inputs) * inputs ** -0.5)
        self.log_sigma = nn.Parameter(torch.full((outputs, inputs), -3.0))

    def forward(self, x):
        noise = torch.randn_like(self.mu)
        return x @ (self.mu + noise * self.log_sigma.exp()).t()


def test_noise_scaled_by_a_parameter_and_dropout_are_silent():
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(_NoisyLinear(64, 32), nn.ReLU(), nn.Dropout(0.2), nn.Linear(32, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, 12):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert [row[1] for row in mon.run.observed.reparameterisations] == [0, 0, 0]
    assert not _problems(mon) & OURS


def test_a_kl_with_the_wrong_sign_is_a_loss_without_floor():
    assert UNBOUNDED in _problems(kl_sign.run(steps=300))
    assert not _problems(kl_sign.run(fixed=True, steps=300))


def test_a_flow_with_its_log_det_added_is_named_and_a_converging_negative_nll_is_not():
    assert UNBOUNDED in _problems(flow_sign.run(steps=300))
    fixed = flow_sign.run(fixed=True, steps=300)
    assert not _problems(fixed)


def test_a_flow_fitted_to_data_with_a_negative_nll_is_silent():
    """Maximum likelihood of a tight 2-D cloud: the NLL falls well below zero and levels
    off there (a density's log can be large)."""
    torch.manual_seed(0)
    data = torch.randn(4096, 2) * torch.tensor([0.05, 0.02]) + torch.tensor([0.3, -0.1])
    flow = flow_sign.Flow()
    optimizer = torch.optim.Adam(flow.parameters(), lr=3e-3)
    with nd.watch(flow, optimizer) as mon:
        for step in range(300):
            optimizer.zero_grad()
            x = data[torch.randint(0, len(data), (128,))]
            z, log_det = _inverse(flow, x)
            loss = -(flow_sign.standard_normal_log_prob(z) + log_det).mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    losses = mon.run.loss_array()[1]
    assert losses[-20:].mean() < -3                  # the NLL does go below zero
    assert not _problems(mon) & OURS


def _inverse(flow, x):
    """The flow's layers run backwards, x -> z, with the inverse's log-determinant."""
    log_det = torch.zeros(len(x))
    for layer in reversed(flow.layers):
        kept = x[:, layer.keep:layer.keep + 1]
        moved = x[:, 1 - layer.keep:2 - layer.keep]
        log_scale, shift = layer.net(kept).chunk(2, dim=1)
        moved = (moved - shift) * torch.exp(-log_scale)
        x = torch.cat([kept, moved], 1) if layer.keep == 0 else torch.cat([moved, kept], 1)
        log_det = log_det - log_scale.squeeze(1)
    return x, log_det


def test_the_forward_is_read_three_times_even_without_a_loss():
    """A run that never hands its loss to step() fills no row: the forward reader still
    stops after its three reads (its hook is not kept on every recorded step)."""
    from nndebug.monitor.reparameterisations import STEPS_MEASURED, Reparameterisations
    from nndebug.observed import Observed
    shared = Reparameterisations(Observed())
    for step in range(STEPS_MEASURED):
        assert shared.in_forward.wants(step)
        shared.in_forward.read(step, [])
    assert not shared.in_forward.wants(STEPS_MEASURED)
    assert shared.in_loss.wants(STEPS_MEASURED)      # no loss read yet


class _LocalReparameterisedLinear(nn.Module):
    """A Bayesian layer with the local reparameterisation trick: the activations' std is
    sqrt(x^2 @ sigma^2), drawn in the forward; the KL reads sigma, the parameter."""

    def __init__(self, inputs, outputs):
        super().__init__()
        self.mu = nn.Parameter(torch.randn(outputs, inputs) * inputs ** -0.5)
        self.log_sigma = nn.Parameter(torch.full((outputs, inputs), -4.0))

    def forward(self, x):
        mean = x @ self.mu.t()
        std = torch.sqrt((x ** 2) @ torch.exp(2 * self.log_sigma).t() + 1e-8)
        return mean + torch.randn_like(mean) * std

    def kl(self):
        sigma2 = torch.exp(2 * self.log_sigma)
        return 0.5 * (sigma2 + self.mu ** 2 - 1 - 2 * self.log_sigma).sum()


def test_a_local_reparameterisation_layer_with_its_kl_is_silent():
    torch.manual_seed(0)
    x, y = classification()
    layer = _LocalReparameterisedLinear(64, 32)
    model = nn.Sequential(layer, nn.ReLU(), nn.Linear(32, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, 12):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb) + layer.kl() / len(x)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    rows = mon.run.observed.reparameterisations
    assert [row[1] for row in rows] == [1, 1, 1]     # the draw is seen, its scale not judged
    assert not _problems(mon) & OURS


def test_a_loss_from_zero_to_minus_one_that_levels_off_is_silent():
    """A negative cosine similarity starts near 0 and ends near -1: far below its starting
    magnitude, but it levels off (has a floor)."""
    torch.manual_seed(0)
    x, y = classification()
    targets = torch.randn(10, 16)[y]
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 16))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer) as mon:
        for xb, tb in batches(x, targets, 300):
            optimizer.zero_grad()
            loss = -F.cosine_similarity(model(xb), tb).mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    losses = mon.run.loss_array()[1]
    assert abs(losses[0]) < 0.1 and losses[-30:].mean() < -0.5
    assert UNBOUNDED not in _problems(mon)

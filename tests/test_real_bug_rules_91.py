"""Real-bug batch 91 (variational autoencoders: the reparameterisation and the KL term): how a
VAE's draw z = mu + eps * std is built, read in the forward's graph
(``monitor/posterior_draws.py``) - noise that is not N(0, 1) (torch.rand_like, an
epsilon_std of 0.01: VAE_NOISE_NOT_STANDARD_NORMAL), the log variance computed by the mean
head (VAE_MEAN_AND_SCALE_FROM_ONE_OUTPUT), a log variance through a softplus, so every std
is >= 1 (VAE_STD_NEVER_BELOW_PRIOR), and the sample drawn but the mean decoded
(VAE_SAMPLE_NOT_DECODED). Variants: a convolutional encoder, SGD, another latent size, a
log-sigma encoder, an in-place exp_, the mean head applied once and reused. Fixed twins
silent, and the healthy look-alikes a careless rule would flag: torch.distributions'
rsample, a loop calling the VAE's parts (no forward of the model to read), a std made by
softplus (no exp), a posterior narrower than the prior by construction (exp(-softplus)),
two heads over one activation, a heteroscedastic Gaussian regression (exp(logvar) and a
squared error, no draw), a NoisyNet-style learned noise scale, a plain autoencoder,
Gaussian dropout."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

from benchmarks.real_bugs import vae_decoder_reads_mean_not_sample as decoded_mean  # noqa: E402
from benchmarks.real_bugs import vae_log_variance_from_mean_head as mean_head  # noqa: E402
from benchmarks.real_bugs import vae_log_variance_through_softplus as softplus  # noqa: E402
from benchmarks.real_bugs import vae_reparameterised_with_uniform_noise as uniform  # noqa: E402
from benchmarks.real_bugs import vae_sampling_noise_std_hundredth as hundredth  # noqa: E402
from benchmarks.real_bugs._common import batches, classification  # noqa: E402
from nndebug.observed import Observed  # noqa: E402
from nndebug.runfile import ROW_READERS  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
CODES = ("VAE_NOISE_NOT_STANDARD_NORMAL", "VAE_MEAN_AND_SCALE_FROM_ONE_OUTPUT",
         "VAE_STD_NEVER_BELOW_PRIOR", "VAE_SAMPLE_NOT_DECODED")
STEPS = 12                    # the rules read the first three recorded steps


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _ours(mon):
    return _problems(mon) & set(CODES)


# --- the planted cases and their twins -----------------------------------------------------

@pytest.mark.parametrize("case", [uniform, hundredth, mean_head, decoded_mean, softplus])
def test_planted_case_is_named_and_its_twin_is_silent(case):
    found = [f for f in case.run(steps=STEPS).findings() if f.code in case.EXPECTED]
    assert found and found[0].severity == "warning"
    assert not _ours(case.run(fixed=True, steps=STEPS))


def test_noise_message_tells_uniform_from_scaled_down():
    rand = [f for f in uniform.run(steps=STEPS).findings()
            if f.code == "VAE_NOISE_NOT_STANDARD_NORMAL"][0]
    assert "rand_like" in rand.message and 0.4 < rand.evidence["noise_mean"] < 0.6
    small = [f for f in hundredth.run(steps=STEPS).findings()
             if f.code == "VAE_NOISE_NOT_STANDARD_NORMAL"][0]
    assert "epsilon_std" in small.message and small.evidence["noise_std"] < 0.05


# --- variants: other encoders, optimizers, parametrisations ------------------------------

class Encoder(nn.Module):
    """mu and a log scale from one body: 'chunk' (one output split), 'heads' (two Linear
    heads), 'conv' (a small CNN, then chunk); ``same_head`` reads the scale from the mean
    head (applied twice, or once and reused)."""

    def __init__(self, kind="chunk", latent=8, same_head=None):
        super().__init__()
        self.kind, self.same_head = kind, same_head
        if kind == "conv":
            self.body = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(),
                                      nn.Flatten(), nn.Linear(8 * 64, 64), nn.ReLU())
        else:
            self.body = nn.Sequential(nn.Linear(64, 64), nn.ReLU())
        self.out = nn.Linear(64, 2 * latent)
        self.fc_mu, self.fc_scale = nn.Linear(64, latent), nn.Linear(64, latent)

    def forward(self, x):
        h = self.body(x.view(-1, 1, 8, 8) if self.kind == "conv" else x)
        if self.same_head == "twice":
            return self.fc_mu(h), self.fc_mu(h)
        if self.same_head == "reused":
            mu = self.fc_mu(h)
            return mu, mu
        if self.kind == "heads":
            return self.fc_mu(h), self.fc_scale(h)
        return self.out(h).chunk(2, dim=1)


class VAE(nn.Module):
    def __init__(self, draw, encoder=None, latent=8):
        super().__init__()
        self.draw, self.encoder = draw, encoder or Encoder(latent=latent)
        self.decoder = nn.Sequential(nn.Linear(latent, 64), nn.ReLU(), nn.Linear(64, 64))

    def forward(self, x):
        mu, s = self.encoder(x)
        z, decoded = self.draw(mu, s)
        return self.decoder(decoded if decoded is not None else z), mu, s


def normal_draw(mu, logvar):
    return mu + torch.randn_like(mu) * torch.exp(0.5 * logvar), None


def kl(mu, logvar):
    return -0.5 * (1 + logvar - mu ** 2 - logvar.exp()).sum(1).mean()


def _vae_run(draw, encoder=None, optimizer="adam", latent=8, kl_term=kl, steps=STEPS):
    torch.manual_seed(0)
    x, y = classification()
    model = VAE(draw, encoder, latent)
    optimizer = (torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
                 if optimizer == "sgd" else torch.optim.Adam(model.parameters(), lr=3e-3))
    import nndebug as nd
    with nd.watch(model, optimizer) as mon:
        for xb, _ in batches(x, y, steps):
            optimizer.zero_grad()
            logits, mu, s = model(xb)
            loss = F.binary_cross_entropy_with_logits(logits, xb, reduction="sum") / len(xb)
            loss = loss + kl_term(mu, s)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_uniform_noise_in_a_conv_vae_trained_with_sgd_is_named():
    def draw(mu, logvar):
        return mu + torch.rand_like(mu) * logvar.mul(0.5).exp_(), None
    mon = _vae_run(draw, Encoder("conv"), optimizer="sgd")
    assert "VAE_NOISE_NOT_STANDARD_NORMAL" in _problems(mon)
    assert not _ours(_vae_run(normal_draw, Encoder("conv"), optimizer="sgd"))


def test_noise_scaled_by_a_half_with_a_larger_latent_is_named():
    def draw(mu, logvar):
        return mu + 0.5 * torch.randn_like(mu) * torch.exp(0.5 * logvar), None
    assert "VAE_NOISE_NOT_STANDARD_NORMAL" in _problems(_vae_run(draw, latent=16))


def test_mean_head_reused_once_is_named_and_two_heads_are_silent():
    for same in ("twice", "reused"):
        mon = _vae_run(normal_draw, Encoder("heads", same_head=same), optimizer="sgd")
        assert "VAE_MEAN_AND_SCALE_FROM_ONE_OUTPUT" in _problems(mon), same
    assert not _ours(_vae_run(normal_draw, Encoder("heads")))


def test_log_sigma_encoder_through_relu_is_named():
    # a log standard deviation made >= 0 by a relu: std = exp(relu(s)) >= 1 as well
    def draw(mu, log_sigma):
        return mu + torch.randn_like(mu) * torch.exp(F.relu(log_sigma)), None

    def kl_sigma(mu, log_sigma):
        s = F.relu(log_sigma)
        return 0.5 * (torch.exp(2 * s) + mu ** 2 - 1 - 2 * s).sum(1).mean()
    assert "VAE_STD_NEVER_BELOW_PRIOR" in _problems(_vae_run(draw, kl_term=kl_sigma))


def test_mean_decoded_from_two_heads_with_sgd_is_named():
    def draw(mu, logvar):
        return mu + torch.randn_like(mu) * torch.exp(0.5 * logvar), mu
    mon = _vae_run(draw, Encoder("heads"), optimizer="sgd")
    assert "VAE_SAMPLE_NOT_DECODED" in _problems(mon)


# --- healthy look-alikes -------------------------------------------------------------------

def test_distributions_rsample_vae_is_silent():
    def draw(mu, logvar):
        return torch.distributions.Normal(mu, torch.exp(0.5 * logvar)).rsample(), None
    assert not _ours(_vae_run(draw))


def test_softplus_std_and_narrower_than_prior_posteriors_are_silent():
    def softplus_std(mu, s):
        return mu + torch.randn_like(mu) * (F.softplus(s) + 1e-4), None

    def kl_std(mu, s):
        std = F.softplus(s) + 1e-4
        return 0.5 * (std ** 2 + mu ** 2 - 1 - 2 * torch.log(std)).sum(1).mean()

    def narrow(mu, s):                   # exp(-softplus): std <= 1 by construction
        return mu + torch.randn_like(mu) * torch.exp(-F.softplus(s)), None
    assert not _ours(_vae_run(softplus_std, kl_term=kl_std))
    assert not _ours(_vae_run(narrow, kl_term=lambda mu, s: kl(mu, -2 * F.softplus(s))))


def test_log_sigma_encoder_and_two_heads_are_silent():
    def draw(mu, log_sigma):
        return mu + torch.randn_like(mu) * torch.exp(log_sigma), None

    def kl_sigma(mu, log_sigma):
        return 0.5 * (torch.exp(2 * log_sigma) + mu ** 2 - 1 - 2 * log_sigma).sum(1).mean()
    assert not _ours(_vae_run(draw, Encoder("heads"), kl_term=kl_sigma))


def test_vae_trained_through_its_parts_is_not_judged():
    # the loop calls model.encoder and model.decoder, never model(x): no forward is read,
    # so "no draw" cannot be told from "the draw was not seen" and nothing is judged
    import nndebug as nd
    torch.manual_seed(0)
    x, y = classification()
    model = VAE(normal_draw)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer) as mon:
        for xb, _ in batches(x, y, STEPS):
            optimizer.zero_grad()
            mu, logvar = model.encoder(xb)
            z, _ = normal_draw(mu, logvar)
            loss = F.binary_cross_entropy_with_logits(model.decoder(z), xb, reduction="sum")
            loss = loss / len(xb) + kl(mu, logvar)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert not _ours(mon)
    assert all(row[2] == 0 for row in mon.run.observed.posterior_draws)


def test_heteroscedastic_regression_without_a_draw_is_silent():
    # a Gaussian likelihood: exp(logvar) of one head, (y - mu) ** 2 of the other, no noise
    import nndebug as nd
    torch.manual_seed(0)
    x, y = classification()
    target = (y.float() - 4.5) / 3
    model = Encoder("heads", latent=1)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, target, STEPS):
            optimizer.zero_grad()
            mu, logvar = model(xb)
            loss = 0.5 * (logvar + (yb[:, None] - mu) ** 2 / logvar.exp()).mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert not _ours(mon)
    assert all(row[2] == 0 for row in mon.run.observed.posterior_draws)


class NoisyLinear(nn.Module):
    """A learned noise scale (a parameter, not a per-sample posterior), and Gaussian
    dropout: noise multiplied into activations."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(64, 64)
        self.log_sigma = nn.Parameter(torch.full((64,), -2.0))
        self.head = nn.Linear(64, 10)

    def forward(self, x):
        h = self.fc(x) + torch.randn(64) * torch.exp(self.log_sigma)
        h = F.relu(h) * (1 + 0.5 * torch.randn_like(h))   # Gaussian dropout
        return self.head(h)


def test_learned_noise_and_gaussian_dropout_in_a_classifier_are_silent():
    import nndebug as nd
    from benchmarks.real_bugs._common import train_watched
    torch.manual_seed(0)
    x, y = classification()
    model = NoisyLinear()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    mon = train_watched(model, optimizer, F.cross_entropy, batches(x, y, STEPS))
    assert not _ours(mon)
    assert nd is not None


def test_plain_autoencoder_reads_no_posterior():
    import nndebug as nd
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(nn.Linear(64, 8), nn.ReLU(), nn.Linear(8, 64))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer) as mon:
        for xb, _ in batches(x, y, STEPS):
            optimizer.zero_grad()
            loss = F.mse_loss(model(xb), xb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert not _ours(mon)
    assert all(not row[1] and row[2] == 0 for row in mon.run.observed.posterior_draws)


# --- the rules on hand-made rows, and the rows read back -----------------------------------

def _findings_of(rows):
    from nndebug.rules import posterior_draws as rules

    class Run:
        observed = Observed()

    class Ctx:
        run = Run()
    Ctx.run.observed.posterior_draws.extend(rows)
    return [f for f in (rules.vae_noise_not_standard_normal(Ctx),
                        rules.vae_mean_and_scale_from_one_output(Ctx),
                        rules.vae_std_never_below_prior(Ctx),
                        rules.vae_sample_not_decoded(Ctx)) if f is not None]


def test_rules_need_every_measured_step_and_two_of_them():
    odd = [0.5, 0.29, 0, 0]
    normal = [0.02, 1.01, 0, 0]
    assert [f.code for f in _findings_of([(0, [odd], 0), (1, [odd], 0)])] == \
        ["VAE_NOISE_NOT_STANDARD_NORMAL"]
    assert _findings_of([(0, [odd], 0)]) == []                        # one step only
    assert _findings_of([(0, [odd], 0), (1, [normal], 0), (2, [odd], 0)]) == []
    assert _findings_of([(0, [normal], 0), (1, [normal], 0)]) == []
    assert [f.code for f in _findings_of([(0, [[0.0, 1.0, 1, 1]], 0)] * 3)] == \
        ["VAE_MEAN_AND_SCALE_FROM_ONE_OUTPUT", "VAE_STD_NEVER_BELOW_PRIOR"]
    assert [f.code for f in _findings_of([(0, [], 1), (1, [], 1)])] == ["VAE_SAMPLE_NOT_DECODED"]
    assert _findings_of([(0, [], 1), (1, [], 0)]) == []


def test_rows_are_listed_and_read_back(tmp_path):
    observed = Observed()
    observed.posterior_draws.append((2, [[0.5, 0.29, 0, 1]], 0))
    saved = observed.to_dict()
    assert ROW_READERS["posterior_draws"](saved["posterior_draws"][0]) == \
        (2, [[0.5, 0.29, 0, 1]], 0)
    import nndebug as nd
    mon = uniform.run(steps=STEPS)
    path = tmp_path / "run.nndebug"
    mon.save(str(path))
    loaded = nd.load_run(str(path))
    assert [list(r) for r in loaded.run.observed.posterior_draws] == \
        [list(r) for r in mon.run.observed.posterior_draws]
    assert "VAE_NOISE_NOT_STANDARD_NORMAL" in {f.code for f in loaded.findings()}

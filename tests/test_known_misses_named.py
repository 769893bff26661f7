"""Real-bug cases that watch used to miss, named now (tests/test_real_bugs.py KNOWN_MISSES).

- LOSS_TERMS_REDUCED_DIFFERENTLY (``rules/loss_reductions.py``): the loss adds a term summed
  over the batch to one averaged over it (a VAE's KL ``.sum()`` next to an ``F.mse_loss``
  mean). Healthy look-alikes stay silent: both terms summed, both averaged, per-sample sums
  averaged over the batch, a weighted sum of two mean losses, an L2 penalty summed over the
  parameters (no batch axis) next to a mean loss, a latent width equal to the batch size.
- LOSS_TERM_DETACHED_FROM_MODEL (``rules/detached_terms.py``): a term of the loss reaches
  another network's parameters only, and that network's optimizer drops its gradient (a GAN
  generator's adversarial loss on ``fake.detach()``). Healthy look-alikes stay silent: an
  actor's and a critic's losses summed while the actor is watched (the critic's optimizer
  stepping before or after ``step(loss)``, or the watched optimizer holding both), a
  discriminator's step on ``fake.detach()``, a constant regulariser, a learned loss weight.
- RESIDUAL_BYPASSED (``rules/self_additions.py``): the model's forward adds a tensor to
  itself (``x = x + x`` written for a residual). Healthy look-alikes stay silent: a
  residual, a doubling written ``2 * x``, a parameter added to itself, one encoder called
  twice and summed, a loss added to itself.
Each planted run is named live and after ``mon.save`` + ``nd.load_run``.
"""
import warnings

import pytest

torch = pytest.importorskip("torch")

from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import gan_generator_step_detached as gan_case  # noqa: E402
from benchmarks.real_bugs import residual_doubled_instead_of_added as residual_case  # noqa: E402
from benchmarks.real_bugs import vae_kl_summed_reconstruction_averaged as vae_case  # noqa: E402
from nndebug import rules  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
REDUCED = "LOSS_TERMS_REDUCED_DIFFERENTLY"
STEPS = 12                   # the rule reads the first six recorded steps


def _problems(findings):
    return {f.code for f in findings if f.severity in PROBLEMS}


def _quiet(run, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run(*args, **kwargs)


# --- LOSS_TERMS_REDUCED_DIFFERENTLY ------------------------------------------------------
class SmallVAE(nn.Module):
    def __init__(self, latent=8, hidden=64):
        super().__init__()
        self.latent = latent
        self.encoder = nn.Sequential(nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden,
                                                                                 2 * latent))
        self.decoder = nn.Sequential(nn.Linear(latent, hidden), nn.ReLU(),
                                     nn.Linear(hidden, 64), nn.Sigmoid())

    def forward(self, x):
        mu, logvar = self.encoder(x).chunk(2, dim=1)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.decoder(z), mu, logvar


def _vae(loss_of, batch=64, latent=8, steps=STEPS):
    """A small VAE on random images trained with ``loss_of(model, recon, x, kl_units)``."""
    torch.manual_seed(0)
    x = torch.rand(batch * 4, 64)
    model = SmallVAE(latent)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer) as mon:
        for step in range(steps):
            xb = x[(step % 4) * batch:(step % 4 + 1) * batch]
            optimizer.zero_grad()
            recon, mu, logvar = model(xb)
            kl_units = -0.5 * (1 + logvar - mu.pow(2) - logvar.exp())
            loss = loss_of(model, recon, xb, kl_units)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def _l2(model):
    return sum(p.pow(2).sum() for p in model.parameters())


PLANTED_VAE = {
    "kl summed, mse averaged": lambda m, r, x, kl: F.mse_loss(r, x) + kl.sum(),
    "kl summed, bce averaged": lambda m, r, x, kl: F.binary_cross_entropy(r, x) + kl.sum(),
    "mse averaged minus a summed term": lambda m, r, x, kl: F.mse_loss(r, x) - (-kl).sum(),
}
HEALTHY_VAE = {
    "both summed": lambda m, r, x, kl: F.mse_loss(r, x, reduction="sum") + kl.sum(),
    "both averaged": lambda m, r, x, kl: F.mse_loss(r, x) + kl.mean(),
    "per-sample sums averaged": lambda m, r, x, kl:
        F.mse_loss(r, x, reduction="none").sum(1).mean() + kl.sum(1).mean(),
    "kl averaged per sample": lambda m, r, x, kl:
        F.mse_loss(r, x, reduction="none").sum(1).mean() + kl.mean(1).mean(),
    "sums divided by the batch": lambda m, r, x, kl:
        F.mse_loss(r, x, reduction="sum") / len(x) + kl.sum() / len(x),
    "weighted means": lambda m, r, x, kl: 0.7 * F.mse_loss(r, x) + 0.3 * F.l1_loss(r, x),
    # a Linear(64, 64) weight leads with 64, the batch size: no batch axis all the same
    "l2 penalty summed over parameters": lambda m, r, x, kl:
        F.mse_loss(r, x) + kl.mean() + 1e-4 * _l2(m),
    "l2 penalty added unweighted": lambda m, r, x, kl: F.mse_loss(r, x) + _l2(m),
}


@pytest.mark.parametrize("name", sorted(PLANTED_VAE))
def test_a_sum_over_the_batch_next_to_a_mean_is_named(name):
    found = _quiet(_vae, PLANTED_VAE[name]).findings()
    finding = next(f for f in found if f.code == REDUCED)
    assert finding.severity == "warning" and finding.evidence["batch"] == 64


@pytest.mark.parametrize("name", sorted(HEALTHY_VAE))
def test_losses_reduced_alike_stay_silent(name):
    mon = _quiet(_vae, HEALTHY_VAE[name])
    assert mon.run.observed.loss_reductions or name.startswith("sums divided") or \
        name.startswith("weighted"), "the addends were read"
    assert REDUCED not in _problems(mon.findings())


def test_a_latent_as_wide_as_the_batch_summed_after_a_batch_mean_stays_silent():
    """``kl.mean(0).sum()`` sums over the latent units of a batch mean: the summed tensor
    leads with the latent width, here equal to the batch size, yet has no batch axis."""
    mon = _quiet(_vae, lambda m, r, x, kl: F.mse_loss(r, x) + kl.mean(0).sum(),
                 batch=16, latent=16)
    assert REDUCED not in _problems(mon.findings())


def test_a_small_batch_stays_silent():
    """With a batch of a few samples a sum is a few means: not worth a warning."""
    mon = _quiet(_vae, PLANTED_VAE["kl summed, mse averaged"], batch=4)
    assert REDUCED not in _problems(mon.findings())


def test_the_case_is_named_and_its_fixed_twin_is_not():
    assert REDUCED in _problems(_quiet(vae_case.run, fixed=False, steps=STEPS).findings())
    assert REDUCED not in _problems(_quiet(vae_case.run, fixed=True, steps=STEPS).findings())


def test_the_addends_are_read_on_the_first_steps_only():
    mon = _quiet(_vae, PLANTED_VAE["kl summed, mse averaged"], steps=30)
    rows = mon.run.observed.loss_reductions
    steps = [step for step, _ in rows]
    assert len(steps) == 6 and steps == sorted(steps) and steps[-1] < 29   # then no more
    assert all(sorted(r for _, r, _, _ in terms) == ["mean", "sum"] for _, terms in rows)


def test_the_reductions_survive_saving(tmp_path):
    mon = _quiet(_vae, PLANTED_VAE["kl summed, mse averaged"])
    mon.save(tmp_path / "run.nndebug")
    loaded = nd.load_run(tmp_path / "run.nndebug")
    assert loaded.run.observed.loss_reductions == mon.run.observed.loss_reductions
    assert REDUCED in _problems(rules.diagnose(loaded.run.judged_view()))


# --- LOSS_TERM_DETACHED_FROM_MODEL --------------------------------------------------------
DETACHED = "LOSS_TERM_DETACHED_FROM_MODEL"
GAN_STEPS = 30


def test_the_generator_step_on_a_detached_fake_is_named_and_its_fixed_twin_is_not():
    planted = _quiet(gan_case.run, fixed=False, steps=GAN_STEPS)
    finding = next(f for f in planted.findings() if f.code == DETACHED)
    assert finding.severity == "warning"
    assert {v for _, _, _, v in planted.run.observed.detached_terms} == {"dropped"}
    fixed = _quiet(gan_case.run, fixed=True, steps=GAN_STEPS)
    assert DETACHED not in _problems(fixed.findings())
    assert not fixed.run.observed.detached_terms      # every term reaches the generator


def test_the_detached_term_survives_saving(tmp_path):
    mon = _quiet(gan_case.run, fixed=False, steps=GAN_STEPS)
    mon.save(tmp_path / "run.nndebug")
    loaded = nd.load_run(tmp_path / "run.nndebug")
    assert loaded.run.observed.detached_terms == mon.run.observed.detached_terms
    assert DETACHED in _problems(rules.diagnose(loaded.run.judged_view()))


def _actor_critic(critic_optimizer, critic_steps_before_record=True, steps=GAN_STEPS):
    """An actor and a critic, their losses summed into one; the actor is watched.
    ``critic_optimizer``: "own" (a second optimizer, stepped before or after ``step(loss)``),
    or "shared" (the watched optimizer holds both networks)."""
    torch.manual_seed(0)
    actor, critic = nn.Linear(8, 4), nn.Linear(8, 1)
    if critic_optimizer == "shared":
        optimizer = torch.optim.Adam(list(actor.parameters()) + list(critic.parameters()))
        critic_opt = None
    else:
        optimizer = torch.optim.Adam(actor.parameters())
        critic_opt = torch.optim.Adam(critic.parameters())
    with nd.watch(actor, optimizer) as mon:
        for _ in range(steps):
            states, returns = torch.randn(32, 8), torch.randn(32, 1)
            actions = torch.randint(0, 4, (32,))
            optimizer.zero_grad()
            if critic_opt is not None:
                critic_opt.zero_grad()
            values = critic(states)
            advantage = (returns - values).detach()
            log_probs = F.log_softmax(actor(states), dim=1)[torch.arange(32), actions]
            loss = -(log_probs * advantage.squeeze(1)).mean() + F.mse_loss(values, returns)
            loss.backward()
            optimizer.step()
            if critic_opt is not None and critic_steps_before_record:
                critic_opt.step()
            mon.step(loss)
            if critic_opt is not None and not critic_steps_before_record:
                critic_opt.step()
    return mon


@pytest.mark.parametrize("setup", ["own, stepped before step(loss)",
                                   "own, stepped after step(loss)", "shared"])
def test_an_actor_and_a_critic_summed_while_one_is_watched_stay_silent(setup):
    mon = _quiet(_actor_critic, setup.split(",")[0],
                 critic_steps_before_record="before" in setup)
    verdicts = {v for _, _, _, v in mon.run.observed.detached_terms}
    assert verdicts == (set() if setup == "shared" else {"stepped"})
    assert DETACHED not in _problems(mon.findings())


def test_the_discriminator_step_on_a_detached_fake_stays_silent():
    """Watching the discriminator: its loss on fake.detach() is right there, and every term
    reaches the watched network."""
    torch.manual_seed(0)
    G, D = nn.Sequential(nn.Linear(16, 32), nn.Tanh()), nn.Linear(32, 1)
    opt_g, opt_d = torch.optim.Adam(G.parameters()), torch.optim.Adam(D.parameters())
    ones, zeros = torch.ones(32, 1), torch.zeros(32, 1)
    with nd.watch(D, opt_d) as mon:
        for _ in range(GAN_STEPS):
            real, fake = torch.randn(32, 32), G(torch.randn(32, 16))
            opt_d.zero_grad()
            d_loss = F.binary_cross_entropy_with_logits(D(real), ones) + \
                F.binary_cross_entropy_with_logits(D(fake.detach()), zeros)
            d_loss.backward()
            opt_d.step()
            mon.step(d_loss)
            opt_g.zero_grad()
            F.binary_cross_entropy_with_logits(D(fake), ones).backward()
            opt_g.step()
    assert not mon.run.observed.detached_terms
    assert DETACHED not in _problems(mon.findings())


def test_a_constant_regulariser_and_a_learned_loss_weight_stay_silent():
    """A constant added to the loss has no graph; a learned log-variance weighting the loss
    (outside the model, in its optimizer) is trained by the watched optimizer."""
    torch.manual_seed(0)
    model = nn.Linear(8, 1)
    log_var = nn.Parameter(torch.zeros(()))
    optimizer = torch.optim.Adam(list(model.parameters()) + [log_var])
    with nd.watch(model, optimizer) as mon:
        for _ in range(GAN_STEPS):
            x, y = torch.randn(32, 8), torch.randn(32, 1)
            optimizer.zero_grad()
            loss = F.mse_loss(model(x), y) * torch.exp(-log_var) + log_var + \
                0.1 * torch.tensor(1.0)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert not mon.run.observed.detached_terms
    assert DETACHED not in _problems(mon.findings())


# --- RESIDUAL_BYPASSED ---------------------------------------------------------------------
BYPASSED = "RESIDUAL_BYPASSED"


class Residual(nn.Module):
    """Two blocks over a 16-wide stream, ``combine(block output, block input)`` after each."""

    def __init__(self, combine):
        super().__init__()
        self.blocks = nn.ModuleList(nn.Sequential(nn.LayerNorm(16), nn.Linear(16, 16),
                                                  nn.Tanh()) for _ in range(2))
        self.head = nn.Linear(16, 4)
        self.combine = combine

    def forward(self, x):
        for block in self.blocks:
            x = self.combine(block(x), x)
        return self.head(x)


class WeightAddedToItself(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(4, 16) * 0.1)

    def forward(self, x):
        return x @ (self.weight + self.weight).t()     # a parameter, not an activation


class Siamese(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(16, 4)

    def forward(self, x):
        return self.encoder(x) + self.encoder(x.flip(0))   # two calls: two tensors


def _classifier(model, steps=10, loss_of=lambda out, y: F.cross_entropy(out, y)):
    torch.manual_seed(0)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer) as mon:
        for _ in range(steps):
            x, y = torch.randn(32, 16), torch.randint(0, 4, (32,))
            optimizer.zero_grad()
            loss = loss_of(model(x), y)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_a_residual_that_adds_the_output_to_itself_is_named():
    torch.manual_seed(0)
    found = _quiet(_classifier, Residual(lambda out, x: out + out)).findings()
    finding = next(f for f in found if f.code == BYPASSED)
    assert finding.evidence["additions"] == 2          # one per block


HEALTHY_FORWARDS = {
    "a residual": lambda: Residual(lambda out, x: out + x),
    "a doubling written as a product": lambda: Residual(lambda out, x: 2 * out + x),
    "a parameter added to itself": WeightAddedToItself,
    "one encoder called twice": Siamese,
}


@pytest.mark.parametrize("name", sorted(HEALTHY_FORWARDS))
def test_forwards_without_a_tensor_added_to_itself_stay_silent(name):
    torch.manual_seed(0)
    mon = _quiet(_classifier, HEALTHY_FORWARDS[name]())
    assert [n for _, n in mon.run.observed.self_additions] == [0, 0, 0]
    assert BYPASSED not in _problems(mon.findings())


def test_a_loss_added_to_itself_is_not_the_models():
    torch.manual_seed(0)
    mon = _quiet(_classifier, Residual(lambda out, x: out + x),
                 loss_of=lambda out, y: (lambda ce: ce + ce)(F.cross_entropy(out, y)))
    assert BYPASSED not in _problems(mon.findings())


def test_the_residual_case_is_named_its_fixed_twin_is_not_and_saving_keeps_it(tmp_path):
    planted = _quiet(residual_case.run, fixed=False, steps=STEPS)
    assert BYPASSED in _problems(planted.findings())
    assert BYPASSED not in _problems(_quiet(residual_case.run, fixed=True, steps=STEPS).findings())
    planted.save(tmp_path / "run.nndebug")
    loaded = nd.load_run(tmp_path / "run.nndebug")
    assert loaded.run.observed.self_additions == planted.run.observed.self_additions
    assert BYPASSED in _problems(rules.diagnose(loaded.run.judged_view()))

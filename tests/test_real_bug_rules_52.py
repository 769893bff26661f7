"""Real-bug batch 52 (generative models): a binary cross-entropy given the data as its
prediction and the model's output as its target (LOSS_ARGUMENTS_SWAPPED), and a loss that
averages a sigmoid of a critic's raw score (CRITIC_OUTPUT_SQUASHED).

Planted: the report's case (a VAE's reconstruction term with
``binary_cross_entropy_with_logits(images, logits)``) and more of the family: a classifier's
``binary_cross_entropy(labels, probabilities)``. Silent: the fixed twin, and losses that
look alike: a student's BCE against a teacher's probabilities that were not detached (both
arguments carry a graph), a mean squared error written (data, output) (symmetric), and a
BCE whose labels come from a frozen model under no_grad.

For the squashed score: planted, the report's WGAN with a sigmoid critic (the generator
watched) and the critic's own turn watched; silent, the fixed twin (a raw score), a
standard GAN whose discriminator ends in a sigmoid read by binary cross-entropy, a smooth
ranking loss (the mean of a sigmoid of a difference of scores) and a soft Dice loss.
"""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import vae_bce_logits_arguments_swapped as vae  # noqa: E402
from benchmarks.real_bugs import wgan_critic_ends_in_sigmoid as wgan  # noqa: E402
from benchmarks.real_bugs._common import batches, binary, classification, mlp  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
SWAPPED = "LOSS_ARGUMENTS_SWAPPED"
SQUASHED = "CRITIC_OUTPUT_SQUASHED"
STEPS = 12


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _codes(mon):
    return {f.code for f in mon.findings()}


def test_the_report_of_a_vae_loss_with_swapped_arguments_is_named_and_its_twin_is_silent():
    mon = vae.run(steps=STEPS)
    assert SWAPPED in _problems(mon)
    finding = next(f for f in mon.findings() if f.code == SWAPPED)
    assert finding.evidence["losses"] == ["binary_cross_entropy_with_logits"]
    assert SWAPPED not in _codes(vae.run(fixed=True, steps=STEPS))


def _binary_loop(loss_of, steps=STEPS, teacher=None):
    """A digits MLP (0-4 against 5-9) trained on ``loss_of(output logits, labels, x)``."""
    torch.manual_seed(0)
    x, y = binary()
    model = mlp(outputs=1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, steps):
            loss = loss_of(model(xb).squeeze(1), yb, xb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_probabilities_passed_as_the_target_of_binary_cross_entropy_are_named():
    def swapped(logits, y, x):       # smoothed labels where the probabilities should go
        return F.binary_cross_entropy(0.05 + 0.9 * y, torch.sigmoid(logits))
    mon = _binary_loop(swapped)
    assert SWAPPED in _problems(mon)


def test_the_usual_argument_order_is_silent():
    mon = _binary_loop(lambda logits, y, x: F.binary_cross_entropy_with_logits(logits, y))
    assert SWAPPED not in _codes(mon)


def test_a_teacher_left_undetached_as_the_target_is_no_swap():
    torch.manual_seed(1)
    teacher = mlp(outputs=1)       # its graph reaches the target: both arguments have one

    def distillation(logits, y, x):
        return F.binary_cross_entropy_with_logits(logits, torch.sigmoid(teacher(x).squeeze(1)))
    assert SWAPPED not in _codes(_binary_loop(distillation))


def test_a_frozen_labeller_under_no_grad_is_no_swap():
    torch.manual_seed(1)
    labeller = mlp(outputs=1)

    def pseudo_labels(logits, y, x):
        with torch.no_grad():
            target = torch.sigmoid(labeller(x).squeeze(1))
        return F.binary_cross_entropy_with_logits(logits, target)
    assert SWAPPED not in _codes(_binary_loop(pseudo_labels))


def test_a_symmetric_loss_written_data_first_is_left_alone():
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(nn.Linear(64, 16), nn.ReLU(), nn.Linear(16, 64))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer) as mon:
        for xb, _ in batches(x, y, STEPS):
            loss = F.mse_loss(xb, model(xb))           # (target, output): the same loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert SWAPPED not in _codes(mon)


# --- CRITIC_OUTPUT_SQUASHED -------------------------------------------------------------------

def test_the_report_of_a_sigmoid_wgan_critic_is_named_and_its_twin_is_silent():
    assert SQUASHED in _problems(wgan.run(steps=STEPS))
    assert SQUASHED not in _codes(wgan.run(fixed=True, steps=STEPS))


def _critic_turns(loss_of, fixed=False, steps=STEPS):
    """The critic of ``wgan`` watched in its own turn, trained on ``loss_of(D, real, fake)``."""
    torch.manual_seed(0)
    x, y = classification()
    G, D = wgan.generator(), wgan.critic(fixed)
    optimizer = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.9))
    with nd.watch(D, optimizer) as mon:
        for real, _ in batches(x, y, steps):
            fake = G(torch.randn(len(real), wgan.LATENT)).detach()
            loss = loss_of(D, real, fake)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_a_watched_critic_turn_reading_a_sigmoid_is_named():
    mon = _critic_turns(lambda D, real, fake: D(fake).mean() - D(real).mean())
    assert SQUASHED in _problems(mon)


def test_a_standard_gan_discriminator_with_a_sigmoid_and_bce_is_silent():
    def minimax(D, real, fake):
        ones, zeros = torch.ones(len(real), 1), torch.zeros(len(fake), 1)
        return F.binary_cross_entropy(D(real), ones) + F.binary_cross_entropy(D(fake), zeros)
    assert SQUASHED not in _codes(_critic_turns(minimax))


def test_a_smooth_ranking_loss_is_silent():
    def smooth_auc(D, real, fake):   # sigmoid of a score difference: a ranking surrogate
        scores = D[:-1]                           # the raw score, without the sigmoid
        return torch.sigmoid(scores(fake) - scores(real)).mean()
    assert SQUASHED not in _codes(_critic_turns(smooth_auc))


def test_a_soft_dice_loss_is_silent():
    torch.manual_seed(0)
    x, y = classification()
    target = (x > 0.5).float()
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 64))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer) as mon:
        for xb, _ in batches(x, target, STEPS):
            p = torch.sigmoid(model(xb))
            t = (xb > 0.5).float()
            loss = 1 - (2 * (p * t).sum() + 1) / (p.sum() + t.sum() + 1)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert SQUASHED not in _codes(mon)

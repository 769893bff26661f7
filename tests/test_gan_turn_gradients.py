"""GRADIENTS_DISCARDED leaves alone the discriminator's zero_grad() that clears what the
generator's turn left in its .grad (real-bug batch 241).

The generator's loss is back-propagated through the watched discriminator, so its pass
lands in the discriminator's .grad; the discriminator's own turn starts with its
zero_grad(), as the PyTorch DCGAN tutorial writes it. When the generator's turn comes first
in a watched step, the step's backward passes delivered more than .grad holds at the step:
the look of a zero_grad() between two micro-batches, which the rule names. The pass it
cleared followed a forward on an input that requires grad (the generator's fake images):
another network's turn, and the rule stands down. Planted: the same discriminator trained on
two micro-batches with a zero_grad() between them and no generator turn; named. (A GAN
whose discriminator zeroes between its own real and fake passes is not told apart from the
healthy loop: its step has a generator pass too.)

PARAMS_NOT_UPDATING reads the same turns: a WGAN critic's loss mean(D(fake)) - mean(D(real))
gives its output bias no gradient at all (the bias cancels), so the bias never moves, while
the generator's pass through the critic leaves it a gradient that the critic's zero_grad()
clears - the look of a zero_grad() between backward() and step(). With other tensors moving
and the generator's passes seen, the rule stands down; a critic zeroed between its own
backward and step (nothing moves) is still named."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs._common import batches, classification  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")

STEPS = 60


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def _nets():
    torch.manual_seed(0)
    generator = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 64), nn.Sigmoid())
    discriminator = nn.Sequential(nn.Linear(64, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))
    return generator, discriminator


def _real_images():
    x, _ = classification()
    return (x - x.min()) / (x.max() - x.min())


def test_the_generator_turn_cleared_by_the_discriminator_is_silent():
    generator, discriminator = _nets()
    opt_g = torch.optim.Adam(generator.parameters(), lr=2e-4, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(discriminator.parameters(), lr=2e-4, betas=(0.5, 0.999))
    bce = nn.BCEWithLogitsLoss()
    real = _real_images()
    with nd.watch(discriminator, opt_d) as mon:
        for xb, _ in batches(real, torch.zeros(len(real)), STEPS):
            ones, zeros = torch.ones(len(xb), 1), torch.zeros(len(xb), 1)
            # the generator's turn first: its loss flows through the discriminator
            opt_g.zero_grad()
            fake = generator(torch.randn(len(xb), 16))
            bce(discriminator(fake), ones).backward()
            opt_g.step()
            # the discriminator's turn: its zero_grad clears what the generator left
            opt_d.zero_grad()
            loss_d = bce(discriminator(xb), ones) + bce(discriminator(fake.detach()), zeros)
            loss_d.backward()
            opt_d.step()
            mon.step(loss_d)
    assert mon.run.observed.input_gradient_passes          # the generator's passes seen
    assert "GRADIENTS_DISCARDED" not in _codes(mon)


def test_a_zero_grad_between_micro_batches_is_still_named():
    _, discriminator = _nets()
    opt_d = torch.optim.Adam(discriminator.parameters(), lr=2e-4)
    bce = nn.BCEWithLogitsLoss()
    real = _real_images()
    with nd.watch(discriminator, opt_d) as mon:
        for xb, _ in batches(real, torch.zeros(len(real)), STEPS):
            labels = torch.randint(0, 2, (len(xb), 1)).float()
            for part in range(4):                       # four micro-batches of one batch
                rows = slice(part * len(xb) // 4, (part + 1) * len(xb) // 4)
                opt_d.zero_grad()                       # the bug: inside the micro-batches
                loss = bce(discriminator(xb[rows]), labels[rows])
                loss.backward()
            opt_d.step()
            mon.step(loss)
    assert "GRADIENTS_DISCARDED" in _codes(mon)


def _wgan(zero_between_backward_and_step):
    generator, critic = _nets()
    opt_g = torch.optim.RMSprop(generator.parameters(), lr=5e-5)
    opt_c = torch.optim.RMSprop(critic.parameters(), lr=5e-5)
    real = _real_images()
    with nd.watch(critic, opt_c) as mon:
        for i, (xb, _) in enumerate(batches(real, torch.zeros(len(real)), STEPS)):
            fake = generator(torch.randn(len(xb), 16)).detach()
            opt_c.zero_grad()
            loss_c = critic(fake).mean() - critic(xb).mean()    # the output bias cancels
            loss_c.backward()
            if zero_between_backward_and_step:
                opt_c.zero_grad()                               # the bug
            opt_c.step()
            mon.step(loss_c)
            for p in critic.parameters():                       # weight clipping
                p.data.clamp_(-0.01, 0.01)
            if i % 2 == 0:                                      # the generator's turn
                opt_g.zero_grad()
                (-critic(generator(torch.randn(len(xb), 16))).mean()).backward()
                opt_g.step()
    return mon


def test_a_wgan_critic_bias_the_loss_cancels_is_silent():
    mon = _wgan(zero_between_backward_and_step=False)
    assert mon.run.observed.input_gradient_passes
    assert "PARAMS_NOT_UPDATING" not in _codes(mon)


def test_a_wgan_critic_zeroed_before_its_step_is_still_named():
    mon = _wgan(zero_between_backward_and_step=True)
    assert _codes(mon) & {"PARAMS_NOT_UPDATING", "GRADIENTS_DISCARDED"}

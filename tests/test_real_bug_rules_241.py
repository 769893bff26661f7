"""Real-bug batch 241 (beginner GANs from first tutorials): REQUIRES_GRAD_TURNED_OFF when the
WHOLE watched model was turned off. A GAN's discriminator frozen for the generator's turn
(``make_trainable(D, False)``) and never made trainable again stops training after its
first update, while the loop goes on calling its optimizer and ``mon.step`` every step (its
loss still backpropagates - into the generator). The rule compared the frozen tensors with
"the rest of the model", which here is nothing, and stood down. Now, when nothing else in
the watched model trains, the recorded steps the loop went on taking count instead. The
healthy look-alike stays silent: the discriminator toggled off for the generator's turn and
on again for its own, inside every step (its flags are off at the end of each step, but it
updates on every one). Both frameworks."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

import minigrad as mg  # noqa: E402
import minigrad.nn as mnn  # noqa: E402
import nndebug as nd  # noqa: E402
from benchmarks.real_bugs._common import classification  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
CODE = "REQUIRES_GRAD_TURNED_OFF"
STEPS = 200
LATENT = 8


def _ours(mon, severities=PROBLEMS):
    return [f for f in mon.findings() if f.code == CODE and f.severity in severities]


def _digits():
    x, _ = classification()
    return x.numpy()


def _torch_gan(unfreeze):
    """The discriminator watched; ``unfreeze``: made trainable again before its own turn."""
    torch.manual_seed(2)
    x = torch.from_numpy(_digits())
    G = nn.Sequential(nn.Linear(LATENT, 64), nn.ReLU(), nn.Linear(64, 64), nn.Sigmoid())
    D = nn.Sequential(nn.Linear(64, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))
    opt_g = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
    ones, zeros = torch.ones(64, 1), torch.zeros(64, 1)
    with nd.watch(D, opt_d) as mon:
        for _ in range(STEPS):
            real = x[torch.randint(0, len(x), (64,))]
            if unfreeze:
                D.requires_grad_(True)
            opt_g.zero_grad()
            opt_d.zero_grad()
            d_loss = F.binary_cross_entropy_with_logits(D(real), ones) + \
                F.binary_cross_entropy_with_logits(D(G(torch.randn(64, LATENT))), zeros)
            d_loss.backward()
            opt_d.step()
            mon.step(d_loss)
            D.requires_grad_(False)                  # the generator's turn
            opt_g.zero_grad()
            F.binary_cross_entropy_with_logits(D(G(torch.randn(64, LATENT))), ones).backward()
            opt_g.step()
    return mon


def _set_trainable(net, flag):
    for p in net.parameters():
        p.requires_grad = flag


def _minigrad_gan(unfreeze):
    mg.manual_seed(2)
    rng = np.random.default_rng(2)
    x = _digits()
    G = mnn.Sequential(mnn.Linear(LATENT, 64), mnn.ReLU(), mnn.Linear(64, 64), mnn.Sigmoid())
    D = mnn.Sequential(mnn.Linear(64, 64), mnn.LeakyReLU(0.2), mnn.Linear(64, 1))
    opt_g = mg.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
    opt_d = mg.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
    bce = mg.ops.binary_cross_entropy_with_logits
    ones = mg.tensor(np.ones((64, 1), np.float32))
    zeros = mg.tensor(np.zeros((64, 1), np.float32))

    def noise():
        return mg.tensor(rng.standard_normal((64, LATENT)).astype(np.float32))

    with nd.watch(D, opt_d) as mon:
        for _ in range(STEPS):
            real = mg.tensor(x[rng.integers(0, len(x), 64)])
            if unfreeze:
                _set_trainable(D, True)
            opt_g.zero_grad()
            opt_d.zero_grad()
            d_loss = bce(D(real), ones) + bce(D(G(noise())), zeros)
            d_loss.backward()
            opt_d.step()
            mon.step(d_loss)
            _set_trainable(D, False)                 # the generator's turn
            opt_g.zero_grad()
            bce(D(G(noise())), ones).backward()
            opt_g.step()
    return mon


@pytest.mark.parametrize("run", [_torch_gan, _minigrad_gan], ids=["torch", "minigrad"])
def test_a_discriminator_frozen_for_the_generator_and_never_unfrozen_is_named(run):
    found = _ours(run(unfreeze=False), ("info", "warning", "error"))
    assert found
    assert found[0].step <= 1
    assert len(found[0].evidence["parameters"]) == 4


@pytest.mark.parametrize("run", [_torch_gan, _minigrad_gan], ids=["torch", "minigrad"])
def test_a_discriminator_unfrozen_for_its_own_turn_is_silent(run):
    assert not _ours(run(unfreeze=True), ("info", "warning", "error"))


def test_the_report_is_a_warning():
    from benchmarks.real_bugs import discriminator_frozen_for_generator_step_never_unfrozen as c
    assert _ours(c.run())
    assert not _ours(c.run(fixed=True), ("info", "warning", "error"))

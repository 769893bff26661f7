"""Real-bug batch 133 (speech enhancement and source separation): a loss in decibels starts
near zero by its nature, so falling far below its start is no sign of a loss without a
floor. LOSS_UNBOUNDED_BELOW now also asks that the loss keep falling after its first
half about as far as in its first (``SECOND_HALF_FALL``): a healthy -SNR denoiser is
silent, a loss with a term of the wrong sign is still named."""
import pytest

torch = pytest.importorskip("torch")

import nndebug as nd  # noqa: E402
from nndebug.rules.unbounded_loss import SECOND_HALF_FALL  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def negative_snr(estimate, reference):
    """-10 log10(|reference|^2 / |reference - estimate|^2), per clip, averaged: 0 dB for an
    estimate that is as far from the clip as silence is."""
    residual = reference - estimate
    return -(10 * torch.log10((reference ** 2).sum(-1) / ((residual ** 2).sum(-1) + 1e-8))).mean()


def waves(n, length=64, seed=0):
    g = torch.Generator().manual_seed(seed)
    t = torch.arange(length) / length
    freq = 1 + 4 * torch.rand(n, 1, generator=g)
    phase = 6.28 * torch.rand(n, 1, generator=g)
    clean = torch.sin(6.28 * freq * t + phase)
    return clean + 0.5 * torch.randn(n, length, generator=g), clean


def train(extra_term=None, steps=300, seed=0):
    torch.manual_seed(seed)
    noisy, clean = waves(512, seed=seed)
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 64))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer) as mon:
        for step in range(steps):
            rows = torch.randint(0, 512, (32,))
            estimate = model(noisy[rows])
            loss = negative_snr(estimate, clean[rows])
            if extra_term is not None:
                loss = loss + extra_term(model, estimate)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_healthy_negative_snr_loss_is_not_unbounded(seed):
    mon = train(seed=seed)
    losses = list(mon.run.losses)
    assert losses[-1] < -5 and losses[-1] < 20 * min(abs(losses[0]), 1.0) * -1, \
        "the look-alike: far below a start near 0 dB"
    assert "LOSS_UNBOUNDED_BELOW" not in codes(mon), mon.findings()


def test_a_term_of_the_wrong_sign_is_still_named():
    """The output's energy added where it should be subtracted (the wrong sign of a
    likelihood's variance term): lowered without end by growing the output, the loss keeps
    falling through its second half."""
    def energy(model, estimate):
        return -10 * (estimate ** 2).mean()
    mon = train(extra_term=energy)
    assert "LOSS_UNBOUNDED_BELOW" in codes(mon), mon.findings()


def test_the_multiple_sits_between_the_measured_cases():
    assert 0.17 < SECOND_HALF_FALL < 0.84

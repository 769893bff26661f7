"""Real-bug batch 109 (normalizing flows): two readings widened so that flows are read right.

- ``monitor/posterior_draws.py``: an affine coupling layer computes ``x * exp(s) + t`` on
  the batch the model was called with - the shape of a VAE's ``mu + eps * std``, with a
  scale its log-determinant also reads - and healthy flows drew
  VAE_NOISE_NOT_STANDARD_NORMAL. An operand sharing storage with the model's inputs (the
  batch, a slice of it) is data now, not a draw. VAEs still drawing uniform or shrunken
  noise are still named.
- ``monitor/duplicated_input_columns.py``: 2-D data tiled into 8 columns to fit a flow
  (bayesiains/nflows#22) was read as a window of an exactly periodic series (copies at one
  offset) and passed; the periodic reading now also needs every column to take no more
  values than the offset, as a noiseless pattern's columns do. Windows of such a series
  stay silent.
"""
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import flow_coupling_mask_never_alternated as masked  # noqa: E402
from benchmarks.real_bugs import flow_fit_to_repeated_feature_copies as tiled  # noqa: E402
from benchmarks.real_bugs import flow_log_det_summed_over_batch as summed  # noqa: E402
from benchmarks.real_bugs import vae_reparameterised_with_uniform_noise as uniform  # noqa: E402
from benchmarks.real_bugs import vae_sampling_noise_std_hundredth as hundredth  # noqa: E402
from nndebug.monitor.duplicated_input_columns import duplicated_columns  # noqa: E402
from nndebug.monitor.dropout_outputs import storage_address  # noqa: E402
from nndebug.monitor.posterior_draws import input_storages  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
NOISE = "VAE_NOISE_NOT_STANDARD_NORMAL"
VAE_CODES = {NOISE, "VAE_MEAN_AND_SCALE_FROM_ONE_OUTPUT", "VAE_STD_NEVER_BELOW_PRIOR",
             "VAE_SAMPLE_NOT_DECODED"}
COPIED = "INPUT_FEATURES_DUPLICATED"
STEPS = 12                    # both readings look at the first recorded steps only


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


# -- affine couplings are not posterior draws ------------------------------------------------

@pytest.mark.parametrize("case", [tiled, summed, masked], ids=["rings", "mixture", "masked"])
def test_the_batchs_flow_twins_draw_no_vae_finding(case):
    assert not _problems(case.run(fixed=True, steps=STEPS)) & VAE_CODES


def test_the_flow_on_tiled_copies_draws_no_vae_finding_either():
    assert not _problems(tiled.run(fixed=False, steps=STEPS)) & VAE_CODES


class WideFlow(nn.Module):
    """A RealNVP coupling stack on wide data (a 2-D mixture at scale 5), the scale network a
    plain MLP, trained with SGD: the data is far from N(0, 1), as a VAE's bad noise is."""

    def __init__(self):
        super().__init__()
        self.nets = nn.ModuleList(nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 2))
                                  for _ in range(4))

    def forward(self, x):
        log_det = torch.zeros(len(x))
        for i, net in enumerate(self.nets):
            keep = i % 2
            kept, moved = x[:, keep:keep + 1], x[:, 1 - keep:2 - keep]
            log_scale, shift = net(kept).chunk(2, dim=1)
            moved = moved * torch.exp(log_scale) + shift
            x = torch.cat([kept, moved], 1) if keep == 0 else torch.cat([moved, kept], 1)
            log_det = log_det + log_scale.squeeze(1)
        return x, log_det


def _train_flow(model, optimizer, data):
    with nd.watch(model, optimizer) as mon:
        for x in data:
            optimizer.zero_grad()
            z, log_det = model(x)
            loss = (0.5 * (z ** 2).sum(1) - log_det).mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_a_wide_data_flow_under_sgd_is_silent():
    torch.manual_seed(0)
    model = WideFlow()
    data = [5 * torch.randn(64, 2) + 3 for _ in range(STEPS)]
    mon = _train_flow(model, torch.optim.SGD(model.parameters(), lr=1e-3), data)
    assert not _problems(mon) & VAE_CODES


class TinyVAE(nn.Module):
    """A VAE whose draw is built from noise of the given kind (not from its input)."""

    def __init__(self, noise):
        super().__init__()
        self.noise = noise
        self.encoder = nn.Linear(64, 2 * 8)
        self.decoder = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 64))

    def forward(self, x):
        mu, logvar = self.encoder(x).chunk(2, dim=1)
        std = torch.exp(0.5 * logvar)
        z = mu + self.noise(std) * std
        return self.decoder(z), mu, logvar


def _train_vae(model, optimizer):
    from benchmarks.real_bugs._common import batches, classification
    x, y = classification()
    with nd.watch(model, optimizer) as mon:
        for xb, _ in batches(x, y, STEPS):
            optimizer.zero_grad()
            recon, mu, logvar = model(xb)
            kl = -0.5 * (1 + logvar - mu ** 2 - logvar.exp()).sum(1).mean()
            loss = ((recon - xb) ** 2).sum(1).mean() + kl
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


@pytest.mark.parametrize("opt", ["adam", "sgd"])
def test_a_vae_drawing_uniform_noise_is_still_named(opt):
    torch.manual_seed(0)
    model = TinyVAE(torch.rand_like)
    optimizer = torch.optim.Adam(model.parameters(), 1e-3) if opt == "adam" else \
        torch.optim.SGD(model.parameters(), 1e-2)
    assert NOISE in _problems(_train_vae(model, optimizer))
    healthy = TinyVAE(torch.randn_like)
    assert not _problems(_train_vae(healthy, torch.optim.Adam(healthy.parameters(), 1e-3))) \
        & VAE_CODES


@pytest.mark.parametrize("case", [uniform, hundredth], ids=["uniform", "hundredth"])
def test_the_earlier_vae_noise_cases_are_still_named(case):
    assert NOISE in _problems(case.run(fixed=False, steps=STEPS))


def test_input_storages_read_views_and_containers():
    x = torch.randn(8, 4)
    found = input_storages((x, {"mask": torch.ones(8)}, [torch.zeros(3)], 5))
    assert storage_address(x[:, 1:2]) in found and len(found) == 3
    assert storage_address(torch.randn(8, 4)) not in found


# -- tiled continuous features are copies, not a periodic window -----------------------------

def test_tiled_continuous_columns_are_copies():
    rng = np.random.default_rng(0)
    points = rng.standard_normal((128, 2)).astype(np.float32)
    groups = duplicated_columns(np.tile(points, (1, 4)))[3]
    assert groups == [[0, 2, 4, 6], [1, 3, 5, 7]]


def test_the_flow_on_tiled_copies_is_named_and_its_twin_is_not():
    assert COPIED in _problems(tiled.run(fixed=False, steps=STEPS))
    assert COPIED not in _problems(tiled.run(fixed=True, steps=STEPS))


def test_an_mlp_on_a_tiled_block_is_named():
    """Another model and optimizer: a regression MLP (SGD) on 16 features, a block of four
    continuous features repeated four times."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for _ in range(STEPS):
            block = torch.randn(64, 4)
            x, y = block.repeat(1, 4), block.sum(1, keepdim=True)
            optimizer.zero_grad()
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert COPIED in _problems(mon)


def test_windows_of_a_noiseless_periodic_series_stay_silent():
    """A pattern of 12 values (and one of 7, rounded) tiled along the series, cut in windows
    at random starts: every column equals the one a period on, and takes at most the period's
    values."""
    rng = np.random.default_rng(1)
    for period, pattern in ((12, np.sin(2 * math.pi * np.arange(12) / 12)),
                            (7, np.round(rng.standard_normal(7), 2))):
        values = np.tile(pattern.astype(np.float32), 200)
        starts = rng.integers(0, len(values) - 40, 96)
        windows = values[starts[:, None] + np.arange(36)]
        assert duplicated_columns(windows)[3] == []

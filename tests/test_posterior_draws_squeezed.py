"""A flow's batch, rearranged inside forward, is no VAE's noise (``monitor/posterior_draws.py``,
``values_of_inputs``; real-bug batch 307).

A normalizing flow squeezes its (B, 1, 8, 8) images into (B, 4, 4, 4) - a reshape and a
permute, new storage - before its first coupling computes ``x * exp(s) + t`` on half the
channels: the storage check of batch 109 did not see the batch in it, and the healthy
RealNVP drew VAE_NOISE_NOT_STANDARD_NORMAL. The values are the batch's, which a fresh draw's
never are. (A VAE's rand_like noise is still named: tests/test_real_bug_rules_91.py.)
"""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from nndebug.monitor.posterior_draws import values_of_inputs  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def squeeze(x):
    b = x.shape[0]
    return x.reshape(b, 1, 4, 2, 4, 2).permute(0, 1, 3, 5, 2, 4).reshape(b, 4, 4, 4)


class Coupling(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(2, 8, 3, padding=1), nn.ReLU(),
                                 nn.Conv2d(8, 4, 3, padding=1))

    def forward(self, x):
        kept, moved = x[:, :2], x[:, 2:]
        log_scale, shift = self.net(kept).chunk(2, dim=1)
        log_scale = torch.tanh(log_scale)
        return torch.cat([moved * torch.exp(log_scale) + shift, kept], 1), \
            log_scale.flatten(1).sum(1)


class SqueezedFlow(nn.Module):
    def __init__(self):
        super().__init__()
        self.couplings = nn.ModuleList(Coupling() for _ in range(3))

    def forward(self, x):
        z, log_det = squeeze(x), torch.zeros(len(x))
        for coupling in self.couplings:
            z, part = coupling(z)
            log_det = log_det + part
        return z, log_det


def test_a_squeezed_flow_draws_no_vae_finding():
    torch.manual_seed(0)
    data = torch.rand(512, 1, 8, 8) * 0.5 + 0.25
    flow = SqueezedFlow()
    optimizer = torch.optim.Adam(flow.parameters(), lr=1e-3)
    with nd.watch(flow, optimizer) as mon:
        for step in range(40):
            x = data[torch.randint(0, len(data), (64,))]
            z, log_det = flow(x)
            loss = -(-0.5 * z.pow(2).flatten(1).sum(1) + log_det).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert not any(f.code.startswith("VAE_") for f in mon.findings())


def test_values_rearranged_from_the_batch_are_the_batchs_and_a_draw_is_not():
    torch.manual_seed(0)
    batch = torch.randn(16, 1, 8, 8)
    assert values_of_inputs(squeeze(batch)[:, 2:], [batch])
    assert not values_of_inputs(torch.randn_like(batch), [batch])
    assert not values_of_inputs(torch.rand(16, 4), [])

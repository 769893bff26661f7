"""Real-bug batch 83 (shape mistakes in models and losses): windows of a series turned into
an LSTM's (steps, samples, 1) layout with ``view`` instead of a transpose
(INPUT_LAYOUT_SCRAMBLED, ``probes/dependencies/sequence_layout.py``; the dependency probes
now read a (steps, samples, features) batch along its samples, so a correct seq-first LSTM
is no BATCH_MIXING), and a per-event KL summed without ``dim`` - the whole batch's total -
then broadcast back through a mask (LOSS_TERMS_REDUCED_DIFFERENTLY, ``monitor/
batch_totals.py``). The fixed twins stay silent, and so do the healthy look-alikes a careless
rule would flag: windows fed in order or shuffled, digit rows read as sequences, noise,
one-hot characters, short sequences; a Pearson-correlation loss (centred with batch means),
an L2 penalty summed over a weight and added per sample, weights normalised by their batch
sum, a KL summed per sample. An LSTM without ``batch_first`` fed batch-first data is still
BATCH_MIXING."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import kl_summed_without_dim_then_masked as kl_case  # noqa: E402
from benchmarks.real_bugs import lstm_series_windows_viewed_not_transposed as lstm  # noqa: E402
from benchmarks.real_bugs._common import batches, classification  # noqa: E402
from nndebug.monitor.batch_totals import BATCH_TOTAL_STEPS, batch_totals_in_terms  # noqa: E402
from nndebug.probes.dependencies.sequence_layout import (  # noqa: E402
    batch_on_dim1, probe_sequence_layout, series_smoothness)

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _found(mon, code):
    return [f for f in mon.findings() if f.code == code and f.severity in PROBLEMS]


# --- the sequence layout: the probe on NumPy batches --------------------------------------

def _reader(x):
    flat = np.ascontiguousarray(x).ravel()
    return lambda index: flat[index]


def _windows(count=120, steps=20):
    x, _ = lstm.ar_windows(count, steps)
    return x.numpy()


def test_windows_viewed_into_steps_first_are_named():
    x = _windows().reshape(20, -1, 1)                     # X.view(steps, -1, 1)
    found = probe_sequence_layout(_reader(x), x.shape, batch_axis=1)
    assert [f.code for f in found] == ["INPUT_LAYOUT_SCRAMBLED"]
    assert found[0].evidence["lag1_correlation_view_undone"] > 0.8
    assert found[0].evidence["lag1_correlation_as_given"] < 0.2


def test_windows_transposed_in_order_or_shuffled_are_silent():
    x = _windows()
    in_order = np.ascontiguousarray(x.T[:, :, None])
    assert probe_sequence_layout(_reader(in_order), in_order.shape, batch_axis=1) == []
    shuffled = np.ascontiguousarray(x[np.random.default_rng(0).permutation(len(x))].T[:, :, None])
    assert probe_sequence_layout(_reader(shuffled), shuffled.shape, batch_axis=1) == []


def test_steps_first_data_viewed_into_batch_first_is_named():
    shuffled = _windows()[np.random.default_rng(0).permutation(120)]   # a loader's batch
    x = np.ascontiguousarray(shuffled.T).reshape(120, 20, 1)   # (T, B) memory, read (B, T)
    found = probe_sequence_layout(_reader(x), x.shape, batch_axis=0)
    assert [f.code for f in found] == ["INPUT_LAYOUT_SCRAMBLED"]
    assert found[0].evidence["batch_axis"] == 0


def test_rough_short_and_image_row_sequences_are_silent():
    rng = np.random.default_rng(0)
    noise = rng.standard_normal((64, 20, 3))
    one_hot = np.eye(12)[rng.integers(0, 12, (64, 20))]
    short = _windows(120, 6).reshape(6, -1, 1)            # scrambled, but 6 steps only
    rows = classification()[0].numpy().reshape(-1, 8, 8)
    for x, axis in ((noise, 0), (noise, 1), (one_hot, 0), (short, 1), (rows, 0)):
        assert probe_sequence_layout(_reader(x), x.shape, axis) == []


def test_smoothness_of_a_series_and_of_noise():
    t = np.arange(200, dtype=np.float64)
    assert series_smoothness(np.sin(t / 10)[:, None, None]) > 0.95
    noise = np.random.default_rng(0).standard_normal((200, 4, 1))
    assert abs(series_smoothness(noise)) < 0.15
    assert series_smoothness(np.ones((10, 2, 1))) == 0.0


def test_the_batch_axis_is_read_from_one_target_per_sample():
    assert batch_on_dim1((20, 200, 1), (200,))
    assert batch_on_dim1((20, 200, 1), (200, 1))
    assert not batch_on_dim1((200, 20, 1), (200,))       # batch-first
    assert not batch_on_dim1((20, 20, 1), (20,))          # square: nothing to tell
    assert not batch_on_dim1((20, 200, 1), (200, 3))      # not one target per sample
    assert not batch_on_dim1((20, 200), (200,))           # not a 3-D batch
    assert not batch_on_dim1((20, 200, 1), None)


# --- the sequence layout inside watch ------------------------------------------------------

def test_the_planted_view_is_named_and_not_as_batch_mixing():
    problems = _problems(lstm.run())
    assert "INPUT_LAYOUT_SCRAMBLED" in problems
    assert "BATCH_MIXING" not in problems


def test_the_transposed_twin_is_silent():
    assert _problems(lstm.run(fixed=True)) == set()


class _Forecaster(nn.Module):
    def __init__(self, batch_first=False, cell=nn.LSTM, reads_batch_first=None):
        super().__init__()
        self.reads_batch_first = batch_first if reads_batch_first is None else reads_batch_first
        self.rnn = cell(1, 16, batch_first=batch_first)
        self.out = nn.Linear(16, 1)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.out(out[:, -1] if self.reads_batch_first else out[-1]).view(-1)


def _series_run(layout, steps=60, batch_first=False, cell=nn.LSTM, shuffle=True,
                reads_batch_first=None):
    torch.manual_seed(0)
    x, y = lstm.ar_windows(512, 20)
    if not shuffle:
        order = torch.arange(len(x))
    model = _Forecaster(batch_first, cell, reads_batch_first)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in (batches(x, y, steps, batch_size=32) if shuffle else
                       ((x[order[:32]], y[order[:32]]) for _ in range(steps))):
            optimizer.zero_grad()
            loss = F.mse_loss(model(layout(xb)), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_a_mini_batch_viewed_in_the_loop_is_named():
    mon = _series_run(lambda xb: xb.view(20, -1, 1), cell=nn.GRU)
    assert _found(mon, "INPUT_LAYOUT_SCRAMBLED")
    assert "BATCH_MIXING" not in _problems(mon)


def test_steps_first_storage_viewed_for_a_batch_first_model_is_named():
    mon = _series_run(lambda xb: xb.t().contiguous().view(-1, 20, 1), batch_first=True)
    found = _found(mon, "INPUT_LAYOUT_SCRAMBLED")
    assert found and found[0].evidence["batch_axis"] == 0


def test_mini_batches_transposed_rightly_are_silent():
    mon = _series_run(lambda xb: xb.t().unsqueeze(-1))
    assert not {"INPUT_LAYOUT_SCRAMBLED", "BATCH_MIXING"} & _problems(mon)
    mon = _series_run(lambda xb: xb.unsqueeze(-1), batch_first=True, shuffle=False)
    assert not {"INPUT_LAYOUT_SCRAMBLED", "BATCH_MIXING"} & _problems(mon)


def test_a_steps_first_lstm_fed_batch_first_data_still_mixes_the_batch():
    mon = _series_run(lambda xb: xb.unsqueeze(-1),        # (B, T, 1) into batch_first=False,
                      reads_batch_first=True)            # its output read as batch-first
    assert "BATCH_MIXING" in _problems(mon)
    assert "INPUT_LAYOUT_SCRAMBLED" not in _problems(mon)


def test_digit_rows_read_as_sequences_are_silent():
    torch.manual_seed(0)
    x, y = classification()

    class RowReader(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.GRU(8, 32, batch_first=True)
            self.out = nn.Linear(32, 10)

        def forward(self, rows):
            return self.out(self.rnn(rows)[0][:, -1])
    model = RowReader()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x.view(-1, 8, 8), y, 60):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert not {"INPUT_LAYOUT_SCRAMBLED", "BATCH_MIXING"} & _problems(mon)


# --- a whole batch's total inside a per-sample term ----------------------------------------

def test_the_planted_dimless_kl_is_named():
    found = _found(kl_case.run(steps=40), "LOSS_TERMS_REDUCED_DIFFERENTLY")
    assert found
    assert found[0].evidence["summed_shape"] == [64, 8, 2]
    assert found[0].evidence["per_sample_shape"] == [64, 8]


def test_the_per_event_kl_twin_is_silent():
    assert _problems(kl_case.run(fixed=True, steps=40)) == set()


def _loss_graph(build):
    """The graph of one loss built on a model output of (16, 4)."""
    torch.manual_seed(0)
    layer = nn.Linear(8, 4)
    out = layer(torch.randn(16, 8))
    return build(out, layer)


def test_a_dimless_sum_added_to_per_sample_terms_is_seen():
    def vae_like(out, layer):
        recon = out.pow(2).sum(1)                            # (16,)
        kl = -0.5 * torch.sum(1 + out - out.exp())           # the batch's total
        return (recon + kl).mean()
    found = batch_totals_in_terms(_loss_graph(vae_like).grad_fn)
    assert found and found[0][0] == [16, 4] and found[0][1] == "mean"


def test_batch_means_weight_sums_penalties_and_per_sample_sums_are_not():
    def pearson(out, layer):
        a, b = out[:, 0], out[:, 1]
        ac, bc = a - a.mean(), b - b.mean()
        return -(ac * bc).sum() / (ac.norm() * bc.norm())

    def penalty(out, layer):                               # weight (4, 8): leads with 4, not 16
        per_sample = out.pow(2).sum(1)
        return (per_sample + 1e-3 * layer.weight.pow(2).sum()).mean()

    def weights_by_their_sum(out, layer):
        w = out[:, 0].exp()
        return (w / w.sum() * out[:, 1]).sum()

    def per_sample_kl(out, layer):
        return (out.pow(2).sum(1) - 0.5 * torch.sum(1 + out - out.exp(), dim=-1)).mean()
    for build in (pearson, penalty, weights_by_their_sum, per_sample_kl):
        assert batch_totals_in_terms(_loss_graph(build).grad_fn) == [], build.__name__


def test_a_vae_with_its_kl_summed_over_everything_is_named_in_a_run():
    torch.manual_seed(0)
    x, y = classification()
    encoder, decoder = nn.Linear(64, 8), nn.Linear(4, 64)
    model = nn.ModuleDict({"encoder": encoder, "decoder": decoder})
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)

    class Wrapper(nn.Module):
        def __init__(self):
            super().__init__()
            self.parts = model

        def forward(self, xb):
            mean, log_var = encoder(xb).chunk(2, dim=1)
            z = mean + torch.randn_like(mean) * torch.exp(0.5 * log_var)
            return torch.sigmoid(decoder(z)), mean, log_var
    net = Wrapper()
    with nd.watch(net, optimizer) as mon:
        for xb, _ in batches(x, y, 30):
            optimizer.zero_grad()
            recon, mean, log_var = net(xb)
            per_sample = F.binary_cross_entropy(recon, xb, reduction="none").sum(1)
            kl = -0.5 * torch.sum(1 + log_var - mean.pow(2) - log_var.exp())   # no dim
            loss = (per_sample + kl).mean()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert _found(mon, "LOSS_TERMS_REDUCED_DIFFERENTLY")


def test_the_loss_graph_is_read_on_the_first_steps_only():
    mon = kl_case.run(steps=40)
    rows = mon.run.observed.batch_totals_in_terms
    assert 2 <= len(rows) <= BATCH_TOTAL_STEPS


def test_saved_and_loaded_rows_read_back(tmp_path):
    mon = kl_case.run(steps=12)
    path = tmp_path / "run.nddebug"
    mon.save(path)
    observed = nd.load_run(path).run.observed
    assert [list(r) for r in observed.batch_totals_in_terms] == \
        [list(r) for r in mon.run.observed.batch_totals_in_terms]
    assert all(isinstance(r[2], str) for r in observed.batch_totals_in_terms)

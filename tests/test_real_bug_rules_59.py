"""Real-bug batch 59 (time-series forecasting): INPUT_FEATURES_DUPLICATED
(``rules/duplicated_inputs.py``, read from the first training inputs' columns),
SCALER_FIT_ON_HELD_OUT_ROWS (``rules/scaler_range.py``, from the lowest and highest input of
the first training forwards and validation passes) and VALIDATION_TEACHER_FORCED
(``rules/teacher_forced_validation.py``, from one probed validation forward).

Each is named on its planted case (natashaklingenbrunn/Transformer-Time-Series-Forecasting#2,
unit8co/darts#573, quancore/social-lstm#2) and on a variant, and silent on the fixed twins
and on set-ups that look alike and are fine: a window of an exactly periodic series (every
column equal to the one a period on), one-hot and flag columns, sequences of calendar
encodings; digits scaled by a fixed 1/16, a stationary series scaled on its training
stretch, a rising one scaled to [-1, 1] on its training stretch; a validation call that
passes the targets with teacher forcing switched off, and a forecaster given the calendar of
the steps it forecasts.
"""
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import scaler_fit_before_time_split as scaler_case  # noqa: E402
from benchmarks.real_bugs import seasonal_encodings_copied_from_hour as seasonal  # noqa: E402
from benchmarks.real_bugs import validation_decoder_teacher_forced as teacher_case  # noqa: E402
from benchmarks.real_bugs._common import batches, classification, mlp  # noqa: E402
from nndebug.monitor.duplicated_input_columns import duplicated_columns  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
COPIED, SCALER, TEACHER = ("INPUT_FEATURES_DUPLICATED", "SCALER_FIT_ON_HELD_OUT_ROWS",
                           "VALIDATION_TEACHER_FORCED")


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def _train(model, data, steps=40, lr=1e-3, validate=None, every=10):
    """The ordinary loop under watch; ``validate()`` gives a validation loss every ``every``
    steps."""
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    with nd.watch(model, optimizer) as mon:
        for done, (xb, yb) in enumerate(data, start=1):
            optimizer.zero_grad()
            loss = F.mse_loss(model(xb), yb)
            loss.backward()
            optimizer.step()
            val_loss = None
            if validate is not None and done % every == 0:
                with torch.no_grad():
                    val_loss = validate(model)
            mon.step(loss, val_loss=val_loss)
            if done == steps:
                break
    return mon


# --- INPUT_FEATURES_DUPLICATED ------------------------------------------------------------

def test_copied_seasonal_encodings_are_named():
    mon = seasonal.run(steps=40)
    assert COPIED in _codes(mon)
    finding = next(f for f in mon.findings() if f.code == COPIED)
    assert finding.evidence["copied_columns"] == [[48, 50, 52], [49, 51, 53]]


def test_the_right_seasonal_encodings_are_silent():
    assert COPIED not in _codes(seasonal.run(fixed=True, steps=40))


def test_a_copied_feature_in_a_batch_of_sequences_is_found():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 24, 5)).astype(np.float32)
    x[..., 3] = x[..., 1]
    rows, features, varied, groups = duplicated_columns(x)
    assert (rows, features, varied, groups) == (16 * 24, 5, 5, [[1, 3]])


def _windows(values, length, count=64, seed=0):
    g = torch.Generator().manual_seed(seed)
    while True:
        starts = torch.randint(0, len(values) - length - 1, (count,), generator=g)
        index = starts[:, None] + torch.arange(length)
        yield values[index], values[starts + length][:, None]


def test_a_window_of_an_exactly_periodic_series_is_silent():
    """A noiseless pattern of period 12 tiled along the series, in windows of 48: every
    column equals the one 12 steps on - the series repeats, no feature was copied."""
    torch.manual_seed(0)
    pattern = torch.sin(2 * math.pi * torch.arange(12, dtype=torch.float32) / 12)
    values = pattern.repeat(170)
    x, _ = next(_windows(values, 48))
    assert duplicated_columns(x.numpy())[3] == []          # read as periodic, not copied
    assert COPIED not in _codes(_train(mlp(48, 32, 1), _windows(values, 48)))


def test_the_periodic_reading_needs_copies_at_one_offset():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 48)).astype(np.float32)
    x = np.tile(np.round(x[:, :12]), (1, 4))                 # a few values per column,
    assert duplicated_columns(x)[3] == []                    # the whole window repeats
    x = rng.standard_normal((64, 48)).astype(np.float32)
    x = np.tile(x[:, :12], (1, 4))        # continuous columns tiled: copied features
    assert len(duplicated_columns(x)[3]) == 12   # (batch 109, bayesiains/nflows#22)
    x = rng.standard_normal((64, 48)).astype(np.float32)
    x[:, 40] = x[:, 3]                                       # one column copied
    assert duplicated_columns(x)[3] == [[3, 40]]


def test_one_hot_and_flag_columns_are_silent():
    """Digits' pixels next to one-hot columns of their class and a flag: sparse and two-valued
    columns equal each other by chance and are not compared."""
    torch.manual_seed(0)
    x, y = classification()
    extra = torch.cat([F.one_hot(y % 3, 3).float(), (y > 4).float()[:, None]], dim=1)
    x = torch.cat([x, extra, extra[:, :1]], dim=1)         # a flag column given twice too
    target = F.one_hot(y, 10).float()
    mon = _train(mlp(x.shape[1], 32, 10), batches(x, target, 40))
    assert COPIED not in _codes(mon)


def test_sequences_of_distinct_calendar_encodings_are_silent():
    torch.manual_seed(0)
    hours = torch.arange(3000, dtype=torch.float32)
    columns = [f(2 * math.pi * hours / p) for p in (24, 168, 8760) for f in (torch.sin,
                                                                             torch.cos)]
    load = torch.sin(2 * math.pi * hours / 24) + 0.1 * torch.randn(3000)
    table = torch.stack([load] + columns, dim=1)

    def data():
        g = torch.Generator().manual_seed(1)
        while True:
            starts = torch.randint(0, 3000 - 25, (32,), generator=g)
            index = starts[:, None] + torch.arange(24)
            yield table[index], load[starts + 24][:, None]

    class Reader(nn.Module):
        def __init__(self):
            super().__init__()
            self.gru = nn.GRU(7, 16, batch_first=True)
            self.head = nn.Linear(16, 1)

        def forward(self, x):
            return self.head(self.gru(x)[0][:, -1])

    assert COPIED not in _codes(_train(Reader(), data(), steps=30))


# --- SCALER_FIT_ON_HELD_OUT_ROWS ------------------------------------------------------------

def test_a_scaler_fitted_before_the_split_is_named():
    mon = scaler_case.run(steps=60)
    assert SCALER in _codes(mon)
    finding = next(f for f in mon.findings() if f.code == SCALER)
    assert finding.evidence["range"] == [0.0, 1.0]
    assert finding.evidence["validation"][1] == 1.0
    assert finding.evidence["training"][1] < 0.95


def test_the_scaler_fitted_on_the_training_stretch_is_silent():
    assert SCALER not in _codes(scaler_case.run(fixed=True, steps=60))


def _scaled_series_run(values, fit_on_all, feature_range=(0.0, 1.0), steps=60):
    """Windows of 30 forecasting the next value, the last 20% validating."""
    cut = int(0.8 * len(values))
    fitted = values if fit_on_all else values[:cut]
    low, high = feature_range
    scaled = low + (values - fitted.min()) / (fitted.max() - fitted.min()) * (high - low)
    series = torch.tensor(scaled, dtype=torch.float32)
    starts = torch.arange(len(series) - 31)
    x, y = series[starts[:, None] + torch.arange(30)], series[starts + 30][:, None]
    train_rows = int((starts + 30 < cut).sum())
    x_val, y_val = x[train_rows:], y[train_rows:]
    torch.manual_seed(0)
    return _train(mlp(30, 64, 1), batches(x[:train_rows], y[:train_rows], steps),
                  steps=steps, validate=lambda m: F.mse_loss(m(x_val), y_val))


def _rising(length=1400, seed=0):
    rng = np.random.default_rng(seed)
    t = np.arange(length)
    return 100 * 1.1 ** (t / 365) * (1 + 0.2 * np.sin(2 * np.pi * t / 365)) \
        * (1 + 0.03 * rng.standard_normal(length))


def test_a_rising_series_scaled_to_minus_one_one_over_both_stretches_is_named():
    assert SCALER in _codes(_scaled_series_run(_rising(), True, (-1.0, 1.0)))


def test_a_rising_series_scaled_to_minus_one_one_on_its_training_stretch_is_silent():
    assert SCALER not in _codes(_scaled_series_run(_rising(), False, (-1.0, 1.0)))


def test_a_stationary_series_scaled_on_its_training_stretch_is_silent():
    rng = np.random.default_rng(1)
    t = np.arange(1400)
    values = np.sin(2 * np.pi * t / 50) + 0.3 * rng.standard_normal(1400)
    assert SCALER not in _codes(_scaled_series_run(values, False))


def test_digits_scaled_by_a_fixed_sixteenth_are_silent():
    torch.manual_seed(0)
    x, y = classification()
    target = F.one_hot(y, 10).float()
    x_val, y_val = x[-300:], target[-300:]
    mon = _train(mlp(64, 32, 10), batches(x[:-300], target[:-300], 40),
                 validate=lambda m: F.mse_loss(m(x_val), y_val))
    assert SCALER not in _codes(mon)


# --- VALIDATION_TEACHER_FORCED ----------------------------------------------------------------

def test_a_teacher_forced_validation_is_named():
    mon = teacher_case.run(steps=50)
    assert TEACHER in _codes(mon)
    finding = next(f for f in mon.findings() if f.code == TEACHER)
    assert finding.evidence["argument"] == "argument 1"
    assert finding.evidence["shape"] == [64, teacher_case.FUTURE, 2]


def test_an_autoregressive_validation_is_silent():
    assert TEACHER not in _codes(teacher_case.run(fixed=True, steps=50))


class RatioSeq2Seq(teacher_case.Seq2Seq):
    """The tutorials' signature: ``forward(observed, targets, teacher_forcing_ratio)``; the
    targets are passed at validation too, read only with the ratio above 0."""

    def forward(self, observed, targets, ratio=1.0):
        return super().forward(observed, targets if ratio > 0 else None)


def _ratio_run(validation_ratio, steps=50):
    torch.manual_seed(0)
    train, held_out = teacher_case.paths(1024, seed=1), teacher_case.paths(128, seed=2)
    model = RatioSeq2Seq()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    g = torch.Generator().manual_seed(3)
    past, future = teacher_case.OBSERVED, slice(teacher_case.OBSERVED, None)
    with nd.watch(model, optimizer) as mon:
        for done in range(1, steps + 1):
            track = train[torch.randint(0, len(train), (64,), generator=g)]
            optimizer.zero_grad()
            loss = F.mse_loss(model(track[:, :past], track[:, future], 1.0), track[:, future])
            loss.backward()
            optimizer.step()
            val_loss = None
            if done % 10 == 0:
                model.eval()
                with torch.no_grad():
                    val_loss = F.mse_loss(model(held_out[:, :past], held_out[:, future],
                                                validation_ratio), held_out[:, future])
                model.train()
            mon.step(loss, val_loss=val_loss)
    return mon


def test_targets_passed_with_teacher_forcing_switched_off_are_silent():
    assert TEACHER not in _codes(_ratio_run(validation_ratio=0.0))


def test_targets_passed_with_teacher_forcing_left_on_are_named():
    assert TEACHER in _codes(_ratio_run(validation_ratio=1.0))


class ShiftedInputDecoder(nn.Module):
    """A decoder given its inputs as the targets shifted right (``[last observed, y[:-1]]``),
    the transformer convention, reading them with a GRU."""

    def __init__(self, dim=32):
        super().__init__()
        self.encoder = nn.GRU(2, dim, batch_first=True)
        self.decoder = nn.GRU(2, dim, batch_first=True)
        self.head = nn.Linear(dim, 2)

    def forward(self, observed, decoder_inputs):
        origin = observed[:, -1:]
        _, state = self.encoder(observed - origin)
        out, _ = self.decoder(decoder_inputs - origin, state)
        return decoder_inputs + self.head(out)


def test_targets_shifted_right_given_at_validation_are_named():
    torch.manual_seed(0)
    train, held_out = teacher_case.paths(1024, seed=1), teacher_case.paths(128, seed=2)
    past = teacher_case.OBSERVED
    shifted = lambda track: track[:, past - 1:-1]            # noqa: E731  [start, y[:-1]]
    model = ShiftedInputDecoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    g = torch.Generator().manual_seed(3)
    with nd.watch(model, optimizer) as mon:
        for done in range(1, 51):
            track = train[torch.randint(0, len(train), (64,), generator=g)]
            optimizer.zero_grad()
            loss = F.mse_loss(model(track[:, :past], shifted(track)), track[:, past:])
            loss.backward()
            optimizer.step()
            val_loss = None
            if done % 10 == 0:
                with torch.no_grad():
                    val_loss = F.mse_loss(model(held_out[:, :past], shifted(held_out)),
                                          held_out[:, past:])
            mon.step(loss, val_loss=val_loss)
    assert TEACHER in _codes(mon)
    assert next(f for f in mon.findings() if f.code == TEACHER).evidence["shift"] == 1


class CalendarForecaster(nn.Module):
    """A decoder reading, at each future step, a covariate of that step known in advance
    (here the daily cycle the load follows: the forecast reproduces it closely)."""

    def __init__(self, dim=32):
        super().__init__()
        self.encoder = nn.GRU(1, dim, batch_first=True)
        self.decoder = nn.GRU(1, dim, batch_first=True)
        self.head = nn.Linear(dim, 1)

    def forward(self, history, calendar):
        _, state = self.encoder(history)
        out, _ = self.decoder(calendar, state)
        return self.head(out)


def test_a_forecaster_given_the_calendar_of_its_steps_is_silent():
    torch.manual_seed(0)
    hours = torch.arange(4000, dtype=torch.float32)
    phase = 2 * math.pi * hours / 24
    calendar = phase.sin()[:, None]
    load = phase.sin() + 0.2 * torch.randn(4000)

    def sample(starts):
        past = starts[:, None] + torch.arange(48)
        ahead = starts[:, None] + 48 + torch.arange(24)
        return load[past][..., None], calendar[ahead], load[ahead][..., None]

    held = sample(torch.arange(3000, 3900, 7))
    model = CalendarForecaster()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    g = torch.Generator().manual_seed(1)
    with nd.watch(model, optimizer) as mon:
        for done in range(1, 51):
            history, cal, target = sample(torch.randint(0, 2900, (64,), generator=g))
            optimizer.zero_grad()
            loss = F.mse_loss(model(history, cal), target)
            loss.backward()
            optimizer.step()
            val_loss = None
            if done % 10 == 0:
                with torch.no_grad():
                    val_loss = F.mse_loss(model(held[0], held[1]), held[2])
            mon.step(loss, val_loss=val_loss)
    assert TEACHER not in _codes(mon)
    probed = mon.run.observed.validation_teacher_inputs
    assert probed and probed[0][3] < 0.5 and probed[0][6]   # reproduced, read at its step


def test_a_lone_column_equal_to_another_is_info_only():
    """Close and adjusted close of a stock that paid nothing: two raw fields that agree over
    the data, one column equal to another - named as info, not as a copied feature block."""
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    close = 100 * np.exp(np.cumsum(0.01 * rng.standard_normal(3000)))
    table = np.stack([close * (1 + 0.005 * rng.standard_normal(3000)), close,
                      close * (1 + 0.01 * np.abs(rng.standard_normal(3000))), close,
                      rng.lognormal(10, 0.3, 3000)], axis=1)      # open, close, high, adj close,
    table = (table - table.min(0)) / (table.max(0) - table.min(0))   # volume; min-max scaled
    x = torch.tensor(table[:-1], dtype=torch.float32)
    y = torch.tensor(table[1:, 1:2], dtype=torch.float32)
    mon = _train(mlp(5, 32, 1), batches(x, y, 40))
    assert COPIED not in _codes(mon)
    info = [f for f in mon.findings() if f.code == COPIED]
    assert info and info[0].severity == "info"
    assert info[0].evidence["copied_columns"] == [[1, 3]]


def test_windows_scaled_each_to_its_own_range_are_silent():
    """Each window min-max scaled by its own lowest and highest value: every training window
    reaches both ends, as every validation window does."""
    values = torch.tensor(_rising(), dtype=torch.float32)
    starts = torch.arange(len(values) - 31)
    raw = values[starts[:, None] + torch.arange(31)]
    low, high = raw[:, :30].amin(1, keepdim=True), raw[:, :30].amax(1, keepdim=True)
    scaled = (raw - low) / (high - low)
    x, y = scaled[:, :30], scaled[:, 30:]
    cut = int(0.8 * len(x))
    torch.manual_seed(0)
    mon = _train(mlp(30, 64, 1), batches(x[:cut], y[:cut], 60), steps=60,
                 validate=lambda m: F.mse_loss(m(x[cut:]), y[cut:]))
    assert SCALER not in _codes(mon)
    assert any(r[0] == "validation" for r in mon.run.observed.input_ranges)

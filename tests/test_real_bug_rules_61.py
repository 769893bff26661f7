"""Real-bug batch 61 (mixed precision and dtypes): INPUT_VALUES_WRAPPED_AROUND
(``rules/wrapped_inputs.py``, from the first training inputs' 8-bit levels and their
neighbours), INPUTS_ROUNDED_BY_LOW_PRECISION (``rules/input_precision.py``, from the first
training inputs' columns and dtype), VALIDATION_TARGETS_TRUNCATED
(``rules/validation_targets.py``, from the validation loss calls' targets next to the
training targets), NAN_BORN_IN_BACKWARD widened to a NaN a GradScaler keeps skipping
(``rules/nonfinite_origins.py``) and UNNORMALIZED_INPUTS left silent when the model scales
its raw inputs itself before any weight (``rules/inputs.py``).

Each is named on its planted case (stackoverflow 48785115, wfondrie/depthcharge#82,
srinidhiPY/SSL_CR_Histo#5, fastino-ai/GLiNER2#155) and on a variant, and silent on the fixed
twins and on set-ups that look alike and are fine: 8-bit smooth images normalised right,
random bytes, coarse grey levels; standardised features, pixels and counts in bfloat16, raw
masses kept in float32; classification, regression on whole-number counts validated with
.long(), a float validation; raw pixels fed straight to a layer still warn
UNNORMALIZED_INPUTS.
"""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import clamp_epsilon_lost_in_half_precision as clamp_case  # noqa: E402
from benchmarks.real_bugs import mass_values_rounded_by_bfloat16_inputs as mass_case  # noqa: E402
from benchmarks.real_bugs import pixels_wrapped_by_uint8_subtraction as wrap_case  # noqa: E402
from benchmarks.real_bugs import validation_targets_cast_to_long as val_case  # noqa: E402
from benchmarks.real_bugs._common import batches, classification, mlp  # noqa: E402
from nndebug.monitor.input_precision import rounded_columns  # noqa: E402
from nndebug.monitor.wrapped_inputs import wrapped_levels  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
WRAPPED, ROUNDED, TRUNCATED = ("INPUT_VALUES_WRAPPED_AROUND", "INPUTS_ROUNDED_BY_LOW_PRECISION",
                               "VALIDATION_TARGETS_TRUNCATED")
BACKWARD, UNNORMALIZED = "NAN_BORN_IN_BACKWARD", "UNNORMALIZED_INPUTS"


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def _train(model, data, loss_fn=F.cross_entropy, steps=40, lr=1e-3, validate=None, every=10,
           cast=None):
    """The ordinary loop under watch; ``validate(model)`` gives a validation loss every
    ``every`` steps (called under no_grad); ``cast``: the dtype the inputs are cast to."""
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    with nd.watch(model, optimizer) as mon:
        for done, (xb, yb) in enumerate(data, start=1):
            optimizer.zero_grad()
            if cast is not None:
                xb = xb.to(cast)
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=cast is not None):
                out = model(xb)
            loss = loss_fn(out.float(), yb)
            loss.backward()
            optimizer.step()
            val_loss = None
            if validate is not None and done % every == 0:
                model.eval()
                with torch.no_grad():
                    val_loss = validate(model)
                model.train()
            mon.step(loss, val_loss=val_loss)
            if done == steps:
                break
    return mon


# --- INPUT_VALUES_WRAPPED_AROUND -------------------------------------------------------------

def _smooth_bytes(n, size=12, smooth=4.0, seed=0):
    """(n, 1, size, size) uint8 images of a smooth random field using the whole 0..255 range
    (a photograph's slowly varying grey), and labels: which half is brighter."""
    rng = np.random.default_rng(seed)
    z = rng.standard_normal((n, 1, size, size))
    f = np.fft.fftfreq(size)
    kernel = np.exp(-(f[:, None] ** 2 + f[None, :] ** 2) * smooth ** 2 * 20)
    field = np.real(np.fft.ifft2(np.fft.fft2(z) * kernel))
    field = (field - field.min()) / (field.max() - field.min())
    images = np.round(field * 255).astype(np.uint8)
    labels = (field[:, 0, :, : size // 2].mean((1, 2)) > field[:, 0, :, size // 2:].mean((1, 2)))
    return images, torch.from_numpy(labels.astype(np.int64))


def _cnn():
    return nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.Flatten(),
                         nn.Linear(8 * 144, 2))


def test_the_uint8_wrap_is_named():
    mon = wrap_case.run()
    assert WRAPPED in _codes(mon)
    finding = next(f for f in mon.findings() if f.code == WRAPPED)
    assert finding.evidence["best_shift"] == 128          # x - 128 in uint8


def test_the_float_centring_is_silent():
    assert WRAPPED not in _codes(wrap_case.run(fixed=True))


def _byte_digits(seed=0):
    """The digits as (N, 1, 8, 8) 8-bit pictures: ink and paper grey levels drawn per image,
    plus a little sensor noise, so the levels cover the whole byte."""
    rng = np.random.default_rng(seed)
    x, y = classification(images=True)
    ink = rng.uniform(0.7, 1.0, (len(x), 1, 1, 1))
    paper = rng.uniform(0.0, 0.2, (len(x), 1, 1, 1))
    pictures = x.numpy() * ink + (1 - x.numpy()) * paper + rng.normal(0, 0.02, x.shape)
    return np.clip(np.round(pictures * 255), 0, 255).astype(np.uint8), y


def _small_cnn():
    return nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.Flatten(),
                         nn.Linear(8 * 64, 10))


def test_images_wrapped_by_a_mean_subtraction_are_named():
    """A CNN on 8-bit pictures centred with ``x - 100`` in uint8 arithmetic."""
    torch.manual_seed(0)
    images, y = _byte_digits()
    x = torch.from_numpy(((images - np.uint8(100)) / 128).astype(np.float32))
    mon = _train(_small_cnn(), batches(x, y, 30), steps=30)
    assert WRAPPED in _codes(mon)


def test_the_same_pictures_centred_in_float_are_silent():
    torch.manual_seed(0)
    images, y = _byte_digits()
    x = torch.from_numpy((images.astype(np.float32) - 100) / 128)
    assert WRAPPED not in _codes(_train(_small_cnn(), batches(x, y, 30), steps=30))


@pytest.mark.parametrize("centred,smooth", [(True, 2.0), (False, 2.0), (True, 4.0),
                                            (False, 8.0)])
def test_smooth_images_normalised_right_are_silent(centred, smooth):
    """Smooth 8-bit fields, from textured (2) to nearly uniform per image (8), in batches of
    32 (where a shift moving whole images looks smoother unless the reading guards it)."""
    torch.manual_seed(0)
    images, labels = _smooth_bytes(512, smooth=smooth)
    values = images.astype(np.float32)
    x = torch.from_numpy((values - 128) / 128 if centred else values / 255)
    mon = _train(_cnn(), batches(x, labels, 30, batch_size=32), steps=30)
    assert WRAPPED not in _codes(mon)


def test_random_bytes_and_coarse_levels_are_not_read_as_wrapped():
    rng = np.random.default_rng(0)
    table = rng.integers(0, 256, (64, 20)).astype(np.float64)
    row = wrapped_levels((table.astype(np.uint8) - np.uint8(128)).astype(np.float64) / 128)
    _, _, shift, plain, best = row
    assert best > 0.85 * plain or best > 0.9              # no shift smooths independent bytes
    x, _ = classification()
    assert wrapped_levels(x.numpy().astype(np.float64)) is None   # 17 grey levels: no byte


def test_wrapped_grids_are_found_only_on_a_byte_range():
    images, _ = _smooth_bytes(256, smooth=2.0)
    wrapped = (images - np.uint8(128)).astype(np.float64) / 128
    _, _, shift, plain, best = wrapped_levels(wrapped)
    assert 16 <= shift <= 240 and best < 0.85 * plain
    assert wrapped_levels(images.astype(np.float64) / 255)[2] == 0    # best unshifted
    assert wrapped_levels((images // 4).astype(np.float64)) is None   # 64 levels only


# --- INPUTS_ROUNDED_BY_LOW_PRECISION ---------------------------------------------------------

def test_masses_cast_to_bfloat16_are_named():
    mon = mass_case.run()
    assert ROUNDED in _codes(mon)
    finding = next(f for f in mon.findings() if f.code == ROUNDED)
    assert finding.evidence["dtype"] == "bfloat16"
    assert finding.evidence["dtype_spacing"] == 4.0


def test_masses_kept_in_float32_are_silent_and_not_unnormalised():
    codes = _codes(mass_case.run(fixed=True))
    assert ROUNDED not in codes and UNNORMALIZED not in codes


class _Centred(nn.Module):
    """Centres and scales its raw inputs with the training set's statistics, then an MLP."""

    def __init__(self, mean, std, width):
        super().__init__()
        self.register_buffer("mean", mean)
        self.register_buffer("std", std)
        self.net = mlp(width, 32, 10)

    def forward(self, x):
        return self.net((x.float() - self.mean) / self.std)


def _with_years(dtype):
    """The digits with a year column (2000-2020, which says the class: 2000 + 2 x digit)."""
    torch.manual_seed(0)
    x, y = classification()
    year = (2000 + 2 * y + torch.randint(0, 2, y.shape)).float()[:, None]
    table = torch.cat([x, year], 1)
    mean, std = table.mean(0), table.std(0) + 1e-6
    return _train(_Centred(mean, std, 65), batches(table, y, 40), cast=dtype)


def test_a_year_column_cast_to_bfloat16_is_named():
    mon = _with_years(torch.bfloat16)
    assert ROUNDED in _codes(mon)
    assert next(f for f in mon.findings() if f.code == ROUNDED).evidence["column"] == 64


def test_the_year_column_in_float32_is_silent():
    assert ROUNDED not in _codes(_with_years(None))


def test_masses_cast_to_float16_are_found():
    x, _ = classification()
    masses = (1500 + 4 * x).half().double().numpy()      # float16 holds 1500, 1501, ... only
    rows, varied, rounded, worst = rounded_columns(masses, 2.0 ** -10)
    assert rounded >= 0.5 * varied and worst[3] == 1.0


@pytest.mark.parametrize("kind", ["standardised", "pixels", "counts"])
def test_inputs_bfloat16_holds_are_silent(kind):
    torch.manual_seed(0)
    x, y = classification()
    if kind == "standardised":
        x = (x - x.mean(0)) / (x.std(0) + 1e-3)
    elif kind == "counts":
        x = torch.round(x * 16)                          # whole numbers 0..16
    mon = _train(mlp(), batches(x, y, 40), cast=torch.bfloat16)
    assert ROUNDED not in _codes(mon)


def test_raw_pixels_fed_to_a_layer_still_warn_unnormalised():
    torch.manual_seed(0)
    x, y = classification()
    mon = _train(mlp(), batches(x * 255, y, 40))
    assert UNNORMALIZED in _codes(mon)


# --- VALIDATION_TARGETS_TRUNCATED ------------------------------------------------------------

def test_validation_targets_cast_to_long_are_named():
    mon = val_case.run()
    assert TRUNCATED in _codes(mon)
    finding = next(f for f in mon.findings() if f.code == TRUNCATED)
    assert finding.evidence["validation_dtype"] == "int64"


def test_float_validation_targets_are_silent():
    assert TRUNCATED not in _codes(val_case.run(fixed=True))


def _ink(x):
    return 10 * x.mean(1, keepdim=True)


def test_a_validation_mse_module_given_int_targets_is_named():
    """nn.L1Loss in validation with ``target.int()``: the module calls F.l1_loss."""
    torch.manual_seed(0)
    x, _ = classification()
    y = _ink(x)
    criterion = nn.L1Loss()
    mon = _train(mlp(64, 32, 1), batches(x[:-200], y[:-200], 40), loss_fn=F.mse_loss,
                 lr=3e-3, validate=lambda m: criterion(m(x[-200:]), y[-200:].int()))
    assert TRUNCATED in _codes(mon)


def test_counts_validated_as_long_are_silent():
    """Whole-number targets (a count) in training and ``.long()`` in validation: nothing was
    truncated."""
    torch.manual_seed(0)
    x, _ = classification()
    y = torch.round(_ink(x) * 3)
    mon = _train(mlp(64, 32, 1), batches(x[:-200], y[:-200], 40), loss_fn=F.mse_loss,
                 lr=3e-3, validate=lambda m: F.mse_loss(m(x[-200:]), y[-200:].long()))
    assert TRUNCATED not in _codes(mon)


def test_classification_validated_with_long_labels_is_silent():
    torch.manual_seed(0)
    x, y = classification()
    mon = _train(mlp(), batches(x[:-200], y[:-200], 40),
                 validate=lambda m: F.cross_entropy(m(x[-200:]), y[-200:].long()))
    assert TRUNCATED not in _codes(mon)


def test_the_validation_mode_leaves_no_mode_behind():
    from nndebug.monitor.function_modes import top_mode
    before = top_mode()     # another test's monitor left open in this process may hold one
    val_case.run(steps=30)
    assert top_mode() is before


# --- NAN_BORN_IN_BACKWARD under a GradScaler ---------------------------------------------------

def test_a_nan_the_scaler_keeps_skipping_is_traced_to_log1p():
    mon = clamp_case.run()
    assert BACKWARD in _codes(mon)
    finding = next(f for f in mon.findings() if f.code == BACKWARD)
    assert finding.evidence["operation"] == "log1p"
    assert finding.evidence["step"] > finding.evidence["first_nonfinite_step"]


def test_the_loss_in_float32_is_silent():
    assert not _codes(clamp_case.run(fixed=True))


def test_a_bfloat16_clamp_under_a_skip_on_nan_guard_is_traced():
    """The same clamp under bfloat16 autocast (1 - 1e-6 is 1.0 there too), with a loop that
    skips the optimizer step when a gradient is not finite instead of a GradScaler."""
    torch.manual_seed(0)
    x, y = classification()
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, 300):
            optimizer.zero_grad()
            with torch.autocast("cpu", dtype=torch.bfloat16):
                loss = clamp_case.one_vs_rest_loss(model(xb), yb, fixed=False)
            loss.backward()
            if all(torch.isfinite(p.grad).all() for p in model.parameters()):
                optimizer.step()
            mon.step(loss)
    assert BACKWARD in _codes(mon)
    assert next(f for f in mon.findings() if f.code == BACKWARD).evidence["operation"] == "log1p"


def test_a_model_run_under_no_grad_every_step_stops_being_watched():
    """Pseudo-labels from the model under no_grad on every step, a cross-entropy after: no
    regression loss ever comes, and after VALIDATION_FORWARDS_WATCHED such forwards no mode
    is pushed any more; none is left behind."""
    from nndebug.monitor.function_modes import top_mode
    from nndebug.monitor.validation_targets import VALIDATION_FORWARDS_WATCHED
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    before = top_mode()     # another test's monitor left open in this process may hold one
    with nd.watch(model, optimizer) as mon:
        for xb, _ in batches(x, y, 40):
            with torch.no_grad():
                pseudo = model(xb).argmax(1)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), pseudo)
            loss.backward()
            optimizer.step()
            mon.step(loss)
        watcher = mon.around.validation_targets
        assert watcher.watched == VALIDATION_FORWARDS_WATCHED and not watcher.rows
    assert top_mode() is before
    assert TRUNCATED not in _codes(mon)

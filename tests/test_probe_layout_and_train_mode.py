"""Two checks of the dependency probes: INPUT_LAYOUT_SCRAMBLED (``layout.py``: channels-last
images reshaped, not permuted, to channels-first; from the batch alone) and the training-mode
pass (``train_mode.py``: a decoder fed, only while it trains, the ground truth it predicts).
Each planted bug is named and its healthy twin is not; the user's model, modes, buffers,
grads and RNG are exactly as they were after the probe."""
import os

import numpy as np
import pytest

import nndebug as nd
from nndebug.probes.dependencies.layout import (MAX_VALUES, images_read, probe_input_layout,
                                                smoothness)

torch = pytest.importorskip("torch")
nn = torch.nn
mg = pytest.importorskip("minigrad")
mnn = pytest.importorskip("minigrad.nn")

DIGITS = os.path.join(os.path.dirname(__file__), "..", "minigrad", "data", "digits.npz")
OBSERVED, PREDICTED = 4, 6


# --- data ----------------------------------------------------------------------------------
def smooth_colour_images(n=8, side=32, seed=0, correlated=True):
    """(n, side, side, 3) channels-last: blurred noise, colours sharing a common picture
    (natural photos' colours correlate) or drawn independently."""
    rng = np.random.default_rng(seed)

    def blurred(shape):
        a = rng.normal(size=shape)
        for _ in range(4):
            for axis in (1, 2):
                a = (a + np.roll(a, 1, axis) + np.roll(a, -1, axis)) / 3
        return a
    common = blurred((n, side, side)) if correlated else 0
    return np.stack([common + blurred((n, side, side)) * (0.4 if correlated else 1)
                     for _ in range(3)], -1)


def coloured_digits(n=64, seed=0):
    """The 8x8 digits painted in a random colour each, standardised, channels-last, and labels."""
    with np.load(DIGITS) as archive:
        images = archive["images"][:n].astype(np.float32).reshape(-1, 8, 8) / 16
        labels = archive["labels"][:n].astype(np.int64)
    colour = 0.3 + 0.7 * np.random.default_rng(seed).random((n, 1, 1, 3))
    x = images[..., None] * colour
    return ((x - x.mean()) / x.std()).astype(np.float32), labels


def reshaped(hwc):
    """The bug: (B, H, W, C) relabelled as (B, C, H, W), memory order kept."""
    b, h, w, c = hwc.shape
    return np.ascontiguousarray(hwc).reshape(b, c, h, w)


def permuted(hwc):
    return np.ascontiguousarray(hwc.transpose(0, 3, 1, 2))


def codes(findings):
    return {f.code for f in findings if f.severity in ("warning", "error")}


# --- INPUT_LAYOUT_SCRAMBLED from the batch ---------------------------------------------------
@pytest.mark.parametrize("images", [
    coloured_digits()[0], smooth_colour_images(), smooth_colour_images(correlated=False),
    smooth_colour_images(side=12)], ids=["digits", "photo-like", "independent-colours", "12px"])
def test_reshaped_images_are_named_and_permuted_ones_are_not(images):
    found = probe_input_layout(reshaped(images))
    assert [f.code for f in found] == ["INPUT_LAYOUT_SCRAMBLED"]
    evidence = found[0].evidence
    assert evidence["shape"] == list(reshaped(images).shape)
    assert evidence["neighbour_correlation_reshape_undone"] > \
        evidence["neighbour_correlation_as_given"]
    assert "permute(0, 3, 1, 2)" in found[0].fix
    assert probe_input_layout(permuted(images)) == []


def test_standardised_per_channel_images_stay_as_they_are():
    x = permuted(smooth_colour_images())
    standardised = (x - x.mean((0, 2, 3), keepdims=True)) / x.std((0, 2, 3), keepdims=True)
    assert probe_input_layout(standardised) == []
    scrambled = reshaped(smooth_colour_images())
    scrambled = (scrambled - scrambled.mean((0, 2, 3), keepdims=True)) / \
        scrambled.std((0, 2, 3), keepdims=True)
    assert codes(probe_input_layout(scrambled)) == {"INPUT_LAYOUT_SCRAMBLED"}


@pytest.mark.parametrize("batch", [
    np.random.default_rng(0).normal(size=(16, 3, 32, 32)),               # noise
    permuted(smooth_colour_images())[:, :1],                              # grayscale
    np.cumsum(np.random.default_rng(1).normal(size=(8, 1, 40, 64)), 3),   # a spectrogram
    np.cumsum(np.random.default_rng(2).normal(size=(8, 3, 20, 1)), 2),    # (B, T, F, 1)
    np.random.default_rng(3).normal(size=(8, 64, 8, 8)),                  # feature maps
    np.zeros((4, 3, 16, 16)),                                             # constant
    np.arange(4 * 3 * 8 * 8).reshape(4, 3, 8, 8),                         # integers
], ids=["noise", "grayscale", "spectrogram", "table", "feature-maps", "constant", "ints"])
def test_other_four_dimensional_inputs_stay_silent(batch):
    assert probe_input_layout(batch) == []


@pytest.mark.parametrize("shape", [(256, 3, 224, 224), (64, 3, 8, 8), (512, 3, 32, 32),
                                   (2, 3, 8, 8)])
def test_the_check_reads_a_bounded_number_of_values(shape):
    read = images_read(shape)
    per_image = int(np.prod(shape[1:]))
    assert 1 <= read <= shape[0]
    assert read == 1 or read * per_image <= MAX_VALUES
    assert read == shape[0] or (read + 1) * per_image > MAX_VALUES


def test_constant_images_have_no_smoothness():
    assert smoothness(np.zeros((1, 3, 8, 8))) == 0.0


def _torch_convnet():
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(8 * 16, 10))


def _minigrad_convnet():
    return mnn.Sequential(mnn.Conv2d(3, 8, 3, padding=1), mnn.ReLU(), mnn.MaxPool2d(2),
                          mnn.Flatten(), mnn.Linear(8 * 16, 10))


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
@pytest.mark.parametrize("bug", [True, False], ids=["reshaped", "permuted"])
def test_watch_names_the_layout_on_a_training_run(framework, bug):
    x, y = coloured_digits(n=256)
    arrange = reshaped if bug else permuted
    if framework == "torch":
        torch.manual_seed(0)
        model, lib, loss_fn = _torch_convnet(), torch, nn.functional.cross_entropy
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
        tensor = torch.from_numpy
    else:
        import minigrad.optim as moptim
        mg.manual_seed(0)
        model, loss_fn = _minigrad_convnet(), mnn.CrossEntropyLoss()
        optimizer = moptim.SGD(model.parameters(), lr=0.05)
        tensor = mg.tensor
    with nd.watch(model, optimizer) as mon:
        for step in range(12):
            rows = slice(16 * step, 16 * step + 16)
            optimizer.zero_grad()
            loss = loss_fn(model(tensor(arrange(x[rows]))), tensor(y[rows]))
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert ("INPUT_LAYOUT_SCRAMBLED" in codes(mon.findings())) == bug


# --- the training-mode pass: teacher forcing one step too late -------------------------------
class TorchForecaster(nn.Module):
    """Reads OBSERVED steps, predicts PREDICTED more; in training mode the decoder is fed the
    ground truth of step i - 1 (``previous_step``) or, the bug, of step i itself."""

    def __init__(self, previous_step, dim=16):
        super().__init__()
        self.previous_step = previous_step
        self.encoder = nn.Linear(2 * OBSERVED, dim)
        self.norm = nn.BatchNorm1d(dim)
        self.drop = nn.Dropout(0.2)
        self.decoder = nn.Linear(dim + 2, 2)

    def forward(self, window):
        h = self.drop(self.norm(torch.tanh(self.encoder(window[:, :OBSERVED].flatten(1)))))
        last, outputs = window[:, OBSERVED - 1], []
        for i in range(PREDICTED):
            if self.training:
                given = window[:, OBSERVED + i - (1 if self.previous_step else 0)]
            else:
                given = last
            last = self.decoder(torch.cat([h, given], 1))
            outputs.append(last)
        return torch.stack(outputs, 1)


class MinigradForecaster(mnn.Module):
    def __init__(self, previous_step, dim=16):
        super().__init__()
        self.previous_step = previous_step
        self.encoder = mnn.Linear(2 * OBSERVED, dim)
        self.decoder = mnn.Linear(dim + 2, 2)

    def forward(self, window):
        h = self.encoder(window[:, :OBSERVED].reshape(window.shape[0], -1)).tanh()
        last, outputs = window[:, OBSERVED - 1], []
        for i in range(PREDICTED):
            if self.training:
                given = window[:, OBSERVED + i - (1 if self.previous_step else 0)]
            else:
                given = last
            last = self.decoder(mg.cat([h, given], 1))
            outputs.append(last)
        return mg.stack(outputs, 1)


def walks(batch=16, seed=0):
    """(windows (B, OBSERVED + PREDICTED, 2), their last PREDICTED steps): the targets lie in
    the inputs, as teacher forcing needs them to."""
    steps = np.random.default_rng(seed).normal(size=(batch, OBSERVED + PREDICTED, 2))
    return steps.astype(np.float32), steps[:, OBSERVED:].copy().astype(np.float32)


def _forecaster(framework, previous_step):
    if framework == "torch":
        torch.manual_seed(0)
        return TorchForecaster(previous_step), torch.from_numpy
    mg.manual_seed(0)
    return MinigradForecaster(previous_step), mg.tensor


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
@pytest.mark.parametrize("previous_step", [False, True], ids=["current-step", "previous-step"])
def test_a_decoder_fed_its_own_target_in_training_mode_is_named(framework, previous_step):
    model, tensor = _forecaster(framework, previous_step)
    x, y = walks()
    result = nd.check_dependencies(model, tensor(x), tensor(y))
    found = [f for f in result.findings if f.code == "TARGETS_IN_INPUTS"]
    assert bool(found) == (not previous_step), str(result)
    if found:
        evidence = found[0].evidence
        assert evidence["offset"] == OBSERVED and evidence["mode"] == "train"
        assert evidence["own_target_positions"] == PREDICTED
        assert [0, OBSERVED] in evidence["pairs"]
    assert result.passed == previous_step


def test_reading_the_target_in_both_modes_is_left_to_the_eval_mode_probes():
    """An autoencoder with noise of its own in training mode reads its targets in both modes:
    a design, not a teacher-forcing slip."""
    class NoisyAutoencoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = nn.Linear(2, 2)

        def forward(self, window):
            out = self.inner(window)
            return out * 1.1 if self.training else out

    torch.manual_seed(0)
    x, _ = walks()
    result = nd.check_dependencies(NoisyAutoencoder(), torch.from_numpy(x), torch.from_numpy(x))
    assert "TARGETS_IN_INPUTS" not in {f.code for f in result.findings}


def test_the_users_model_mode_buffers_grads_and_rng_are_untouched():
    model, tensor = _forecaster("torch", previous_step=False)
    x, y = walks()
    nn.functional.mse_loss(model(tensor(x)), tensor(y)).backward()   # grads and BN statistics
    model.drop.eval()                                                  # a mixed mode
    modes = [m.training for m in model.modules()]
    state = {k: v.clone() for k, v in model.state_dict().items()}
    grads = [p.grad.clone() for p in model.parameters()]
    rng, np_rng = torch.get_rng_state(), np.random.get_state()
    result = nd.check_dependencies(model, tensor(x), tensor(y))
    assert "TARGETS_IN_INPUTS" in {f.code for f in result.findings}
    assert [m.training for m in model.modules()] == modes
    after = model.state_dict()
    assert all(torch.equal(state[k], after[k]) for k in state)
    assert all(torch.equal(g, p.grad) for g, p in zip(grads, model.parameters()))
    assert torch.equal(rng, torch.get_rng_state())
    assert np.array_equal(np_rng[1], np.random.get_state()[1])


def test_a_model_in_eval_mode_gets_no_training_mode_pass():
    model, tensor = _forecaster("torch", previous_step=False)
    model.eval()
    x, y = walks()
    result = nd.check_dependencies(model, tensor(x), tensor(y))
    assert "TARGETS_IN_INPUTS" not in {f.code for f in result.findings}
    assert "training mode" not in result.checked

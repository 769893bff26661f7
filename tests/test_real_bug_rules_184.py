"""COLLAPSED_ACTIVATIONS on one look only (real-bug batch 184). Instant-NGP draws its grid
features in +-1e-4, so at step 0 the MLP behind the grid sees nearly the same input for
every pixel and its first layers give one activation for the whole batch. A short run has
its one heavy record (the spread across samples is measured there) at step 0: the
collapse was read from that single look, and the helper had to draw the features at +-0.1
to keep the healthy twin silent. A collapse seen on fewer than MIN_RECORDS records now
needs the run to have learned poorly; one that lasts is still named (the zoo's constant
initialisations, a layer zeroed for good)."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import _inr184 as inr  # noqa: E402
from benchmarks.real_bugs._coordinate_fields import digit_mosaic  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _grid_field(init):
    field = inr.GridField((4, 8, 16, 32, 64))
    field.encoding = inr.GridEncoding((4, 8, 16, 32, 64), init=init)
    return field


def test_a_grid_drawn_at_instant_ngp_scale_learns_and_is_silent():
    torch.manual_seed(0)
    grid, _ = digit_mosaic()
    mon = inr.fit_pixels(_grid_field(1e-4), (grid + 1) / 2, 300, 1e-2)
    assert mon.train_psnr > 30
    assert "COLLAPSED_ACTIVATIONS" not in _codes(mon) and not _codes(mon)


def test_a_layer_whose_weights_stay_zero_is_still_collapsed():
    torch.manual_seed(0)
    x, y = torch.randn(256, 8), torch.randint(0, 4, (256,))
    model = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(),
                          nn.Linear(32, 4))
    nn.init.zeros_(model[2].weight)
    model[2].weight.requires_grad_(False)      # zeroed for good: every sample alike
    optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.1)
    with nd.watch(model, optimizer) as mon:
        for step in range(100):
            rows = slice(32 * (step % 8), 32 * (step % 8 + 1))
            loss = nn.functional.cross_entropy(model(x[rows]), y[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert "COLLAPSED_ACTIVATIONS" in _codes(mon)

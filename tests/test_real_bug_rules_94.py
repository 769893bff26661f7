"""Real-bug batch 94 (pruning, weight masks and sparsity): pruning by hand that does not hold
one optimizer step - SGD's momentum or Adam's moments moving gradient-masked zeros
(PRUNED_WEIGHTS_REGROW, ``monitor/pruned_weights.py``) - and a prune mask that covers a
whole layer (LAYER_PRUNED_ENTIRELY, from ``torch.nn.utils.prune``'s masks). Variants: a CNN
pruned mid-run under SGD with momentum and weight decay, weights zeroed once with no mask
at all under Adam, a Linear pruned whole by ``l1_unstructured(amount=1.0)``. Fixed twins
silent, and the healthy look-alikes a careless rule would flag: a mask re-applied after every
step (sparse training's loop), ``torch.nn.utils.prune`` mid-run, dense-sparse-dense training
releasing its mask after a sparse phase, weights clamped at zero, a layer zero-initialised
(at the start, and re-initialised to all zeros mid-run)."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn.utils import prune  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import adam_moments_move_masked_weights as adam_case  # noqa: E402
from benchmarks.real_bugs import momentum_revives_pruned_weights as momentum_case  # noqa: E402
from benchmarks.real_bugs import slimming_threshold_empties_a_layer as slimming  # noqa: E402
from benchmarks.real_bugs._common import batches, classification, mlp  # noqa: E402
from nndebug.monitor.pruned_weights import PRUNED_SHARE_MIN, prune_masks  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
REGROW = "PRUNED_WEIGHTS_REGROW"
WHOLE = "LAYER_PRUNED_ENTIRELY"


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _smallest_zeroed(weight, share):
    """Zero the smallest ``share`` of ``weight`` in place; the 0/1 mask of what is kept."""
    w = weight.detach()
    threshold = w.abs().flatten().kthvalue(int(share * w.numel())).values
    mask = (w.abs() > threshold).float()
    with torch.no_grad():
        weight.mul_(mask)
    return mask


def _train(model, optimizer, steps=60, before_step=None, after_step=None, images=False):
    x, y = classification(images=images)
    with nd.watch(model, optimizer) as mon:
        for step, (xb, yb) in enumerate(batches(x, y, steps)):
            if before_step is not None:
                before_step(step)
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            if after_step is not None:
                after_step(step)
            mon.step(loss)
    return mon


# --- the planted cases and their twins -----------------------------------------------------

@pytest.mark.parametrize("case", [momentum_case, adam_case])
def test_pruned_weights_moved_by_optimizer_state_are_named(case):
    mon = case.run()
    found = [f for f in mon.findings() if f.code == REGROW]
    assert found and found[0].severity == "warning"
    evidence = found[0].evidence
    assert evidence["step"] == case.PRUNE_AT
    # shares of the 256 sampled entries: within 0.1 (3.4 binomial standard deviations)
    assert evidence["pruned_share"] >= case.SPARSITY - 0.1 and evidence["regrown_share"] > 0.5
    assert not _problems(case.run(fixed=True))


def test_global_slimming_threshold_emptying_a_layer_is_named():
    found = [f for f in slimming.run().findings() if f.code == WHOLE]
    assert found and all(f.severity in PROBLEMS for f in found)
    assert found[0].where == "1"          # the first batch norm: all 128 channels masked
    assert not _problems(slimming.run(fixed=True))


# --- variants ----------------------------------------------------------------------------

def test_cnn_pruned_under_momentum_and_weight_decay_is_named():
    torch.manual_seed(1)
    model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.Flatten(),
                          nn.Linear(8 * 64, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.03, momentum=0.9, weight_decay=1e-4)

    def prune_conv(step):
        if step == 30:
            mask = _smallest_zeroed(model[0].weight, 0.6)
            model[0].weight.register_hook(lambda grad: grad * mask)
    mon = _train(model, optimizer, before_step=prune_conv, images=True)
    found = [f for f in mon.findings() if f.code == REGROW]
    assert found and found[0].where == "0.weight" and found[0].step == 30


def test_weights_zeroed_once_without_any_mask_are_named():
    torch.manual_seed(2)
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    mon = _train(model, optimizer,
                 before_step=lambda step: step == 25 and _smallest_zeroed(model[0].weight, 0.5))
    assert REGROW in _problems(mon)


def test_linear_pruned_whole_by_torch_prune_is_named():
    torch.manual_seed(3)
    model = mlp()
    prune.l1_unstructured(model[0], "weight", amount=1.0)
    mon = _train(model, torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9))
    found = [f for f in mon.findings() if f.code == WHOLE]
    assert found and found[0].severity in PROBLEMS and found[0].where == "0"


# --- healthy look-alikes -------------------------------------------------------------------

def test_mask_reapplied_after_every_step_stays_silent():
    torch.manual_seed(4)
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    masks = {}

    def prune_at(step):
        if step == 20:
            masks["w"] = _smallest_zeroed(model[0].weight, 0.8)

    def reapply(step):
        if masks:
            with torch.no_grad():
                model[0].weight.mul_(masks["w"])
    mon = _train(model, optimizer, before_step=prune_at, after_step=reapply)
    assert not _problems(mon)
    assert mon.run.observed.pruned_weight_regrowth   # the pruning was seen ...
    assert all(row[5] == 0.0 for row in mon.run.observed.pruned_weight_regrowth)   # ... held


def test_torch_prune_mid_run_under_adam_stays_silent():
    torch.manual_seed(5)
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)

    def prune_at(step):
        if step == 20:
            prune.l1_unstructured(model[0], "weight", amount=0.7)
    mon = _train(model, optimizer, before_step=prune_at)
    assert not _problems(mon)
    rows = mon.run.observed.pruned_layers
    assert rows == [("0", "weight", 64 * 64, pytest.approx(0.7, abs=0.01))]


def test_dense_sparse_dense_release_after_a_sparse_phase_stays_silent():
    torch.manual_seed(6)
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    masks = {}

    def prune_at(step):
        if step == 15:
            masks["w"] = _smallest_zeroed(model[0].weight, 0.5)

    def hold_then_release(step):
        if masks and step < 40:             # the sparse phase; then dense again on purpose
            with torch.no_grad():
                model[0].weight.mul_(masks["w"])
    assert not _problems(_train(model, optimizer, before_step=prune_at,
                                after_step=hold_then_release))


def test_weights_clamped_at_zero_stay_silent():
    torch.manual_seed(7)
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

    def non_negative(step):
        with torch.no_grad():
            model[2].weight.clamp_(min=0)
    mon = _train(model, optimizer, after_step=non_negative)
    assert REGROW not in {f.code for f in mon.findings()}
    assert mon.run.observed.pruned_weight_regrowth    # the first clamp looked like a pruning


def test_zero_initialised_layers_stay_silent():
    torch.manual_seed(8)
    model = mlp()
    nn.init.zeros_(model[2].weight)                 # zero-init head, from the start
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

    def reinitialise(step):
        if step == 30:
            nn.init.zeros_(model[2].weight)         # a head re-initialised to zeros mid-run
    mon = _train(model, optimizer, before_step=reinitialise)
    assert REGROW not in {f.code for f in mon.findings()}
    assert not mon.run.observed.pruned_weight_regrowth


# --- the observer --------------------------------------------------------------------------

def test_share_threshold_and_prune_masks_read_directly():
    assert 0 < PRUNED_SHARE_MIN < 0.5
    layer = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3))
    prune.custom_from_mask(layer[1], "weight", torch.tensor([0.0, 0.0, 0.0]))
    prune.l1_unstructured(layer[0], "weight", amount=6)
    rows = prune_masks(layer)
    assert ("1", "weight", 3, 1.0) in rows and ("0", "weight", 12, 0.5) in rows
    assert prune_masks(None) == [] and prune_masks(nn.Linear(2, 2)) == []


def test_step_hook_goes_at_close():
    torch.manual_seed(10)
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    hooks_before = len(getattr(optimizer, "_optimizer_step_pre_hooks", {}))
    _train(model, optimizer, steps=5)
    assert len(getattr(optimizer, "_optimizer_step_pre_hooks", {})) == hooks_before


def test_rows_saved_and_loaded(tmp_path):
    mon = momentum_case.run(steps=momentum_case.PRUNE_AT + 5)
    path = tmp_path / "run.nndebug"
    mon.save(str(path))
    observed = nd.load_run(str(path)).run.observed
    for name in ("pruned_weight_regrowth", "pruned_layers"):
        assert [list(r) for r in getattr(observed, name)] == \
            [list(r) for r in getattr(mon.run.observed, name)]
    assert observed.pruned_weight_regrowth


def test_pruning_events_read_from_sampled_rows():
    import numpy as np
    from nndebug.monitor.pruned_weights import pruning_events
    held = np.ones((5, 10))
    held[2:, :5] = 0.0                        # half the entries zeroed before step 2, kept
    assert pruning_events("w", held, [0, 1, 2, 3, 4]) == [(2, "w", 0.0, 0.5, 0.5, 0.0)]
    regrown = held.copy()
    regrown[3:, :4] = 0.3                     # four of the five zeros moved one step later
    assert pruning_events("w", regrown, [0, 1, 2, 3, 4]) == \
        [(2, "w", 0.0, 0.5, pytest.approx(0.1), pytest.approx(0.8))]
    small = np.ones((4, 10))
    small[2:, :1] = 0.0                       # 10%: below the share a pruning takes
    whole = np.ones((4, 10))
    whole[2:] = 0.0                           # all of it: a re-initialisation
    assert pruning_events("w", small, range(4)) == pruning_events("w", whole, range(4)) == []


def test_sampled_rows_stop_at_the_window(monkeypatch):
    from nndebug.monitor import pruned_weights
    monkeypatch.setattr(pruned_weights, "WINDOW_STEPS", 8)
    torch.manual_seed(11)
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

    def prune_at(step):
        if step == 20:                        # after the window: not followed
            _smallest_zeroed(model[0].weight, 0.8)
    mon = _train(model, optimizer, steps=30, before_step=prune_at)
    assert not mon.run.observed.pruned_weight_regrowth

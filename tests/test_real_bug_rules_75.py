"""Real-bug batch 75 (losses written by hand): a softmax-probability loss without its minus
sign (LOSS_SIGN_FLIPPED), the log of a softmax or of 1 - a clamped sigmoid that float32
rounds to log(0) late in the run, on a step no record watched (NAN_BORN_IN_FORWARD, from the
unguarded log read on the first steps), and a focal loss averaged over its one-hot
(batch, classes) table under SGD (LOSS_MEAN_OVER_CLASSES). The fixed twins stay silent, and
so do the healthy look-alikes a careless rule would flag: the same hand-written
cross-entropy under Adam (the scale divides out), summed over the classes, a multi-label
BCE averaged over (batch, classes), ``1 - p`` of the label minimised (its sign is right), a
log(softmax) that never meets a 0, a learning-rate blow-up with log_softmax, and logs
guarded by an eps or by a clamp whose bound survives float32. A soft Dice smoothed only in
its denominator over a set with empty masks (LOSS_CONSTANT_ON_EMPTY_TARGETS); silent when
smoothed in its numerator too, when a BCE term trains the empty images, when no mask is
empty."""
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

from benchmarks.real_bugs import clamp_epsilon_below_float32_spacing as clamp  # noqa: E402
from benchmarks.real_bugs import cross_entropy_log_of_softmax_underflows as logsm  # noqa: E402
from benchmarks.real_bugs import cross_entropy_missing_minus_sign as sign  # noqa: E402
from benchmarks.real_bugs import dice_loss_constant_on_empty_masks as dice  # noqa: E402
from benchmarks.real_bugs import focal_loss_averaged_over_classes as focal  # noqa: E402
from benchmarks.real_bugs._common import batches, classification, mlp, train_watched  # noqa: E402
from nndebug.monitor.empty_overlaps import overlap_mask  # noqa: E402
from nndebug.monitor.loss_signs import picked_probability_loss  # noqa: E402
from nndebug.monitor.unguarded_logs import unguarded  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
HELD_OUT = 297


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _found(mon, code):
    return [f for f in mon.findings() if f.code == code and f.severity in PROBLEMS]


def _run(loss, steps, optimizer="sgd", lr=0.1, hidden=64, **watch):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp(hidden=hidden)
    opt = torch.optim.SGD(model.parameters(), lr=lr) if optimizer == "sgd" else \
        torch.optim.Adam(model.parameters(), lr=lr)
    mon = train_watched(model, opt, loss, batches(x[:-HELD_OUT], y[:-HELD_OUT], steps), **watch)
    with torch.no_grad():
        mon.test_accuracy = float((model(x[-HELD_OUT:]).argmax(1) == y[-HELD_OUT:]).float().mean())
    return mon


# --- LOSS_SIGN_FLIPPED -------------------------------------------------------------------

def test_a_probability_loss_without_its_minus_sign_is_named():
    mon = sign.run()
    found = _found(mon, "LOSS_SIGN_FLIPPED")
    assert found and found[0].severity == "error"
    assert found[0].evidence["classes"] == 10
    assert found[0].evidence["picked_probability_end"] < 0.3 * 0.1
    assert mon.test_accuracy < 0.1


def test_a_gathered_label_probability_summed_is_named_too():
    def loss(logits, targets):      # gather + sum: the scale is the batch
        return F.softmax(logits, 1).gather(1, targets[:, None]).squeeze(1).sum()
    mon = _run(loss, 150, optimizer="adam", lr=3e-3)
    assert mon.test_accuracy < 0.1
    assert _found(mon, "LOSS_SIGN_FLIPPED")


def test_the_minus_sign_twin_is_not_flipped():
    mon = sign.run(fixed=True)
    assert "LOSS_SIGN_FLIPPED" not in _problems(mon)
    assert mon.test_accuracy > 0.7


def test_one_minus_the_label_probability_is_not_flipped():
    def loss(logits, targets):      # 1 - p: minimised, p is maximised (right sign)
        p = F.softmax(logits, 1)
        return (1 - p[torch.arange(len(targets)), targets]).mean()
    mon = _run(loss, 150, optimizer="adam", lr=3e-3)
    assert mon.test_accuracy > 0.7
    assert "LOSS_SIGN_FLIPPED" not in _problems(mon)


def test_a_probability_minimised_that_stays_near_chance_is_not_flipped():
    # the + sign form, but the model cannot move (lr 0): the probability stays at chance
    def loss(logits, targets):
        return F.softmax(logits, 1)[torch.arange(len(targets)), targets].mean()
    mon = _run(loss, 60, optimizer="sgd", lr=0.0)
    assert mon.run.observed.picked_probability_losses        # the form is read...
    assert "LOSS_SIGN_FLIPPED" not in _problems(mon)         # ...but nothing fell below chance


def test_the_picked_probability_reader_reads_the_form_only():
    x = torch.randn(8, 10, requires_grad=True)
    y = torch.randint(0, 10, (8,))
    idx = torch.arange(8)
    forms = {"plus": lambda: x.softmax(1)[idx, y].mean(),
             "minus": lambda: -x.softmax(1)[idx, y].mean(),
             "cross_entropy": lambda: F.cross_entropy(x, y),
             "whole_mean": lambda: x.softmax(1).mean(),
             "weighted": lambda: (x.softmax(1)[idx, y] * torch.rand(8)).mean()}
    read = {}
    for name, make in forms.items():
        loss = make()
        loss.backward()
        read[name] = picked_probability_loss(loss.grad_fn)     # after backward, as the walk
    assert read["plus"] == ("softmax", "mean", 1, 10, 8)
    assert read["minus"] == ("softmax", "mean", -1, 10, 8)
    assert read["cross_entropy"] is None and read["whole_mean"] is None
    assert read["weighted"] is None


# --- NAN_BORN_IN_FORWARD from an unguarded log -------------------------------------------

def test_log_of_a_softmax_underflowing_late_is_named():
    mon = logsm.run()
    found = _found(mon, "NAN_BORN_IN_FORWARD")
    assert found and found[0].evidence["inferred"]
    assert found[0].evidence["operation"] == "log(softmax)"
    assert found[0].evidence["first_nonfinite_step"] > 100    # late: no record watched it
    assert "cross_entropy_log_of_softmax_underflows.py" in found[0].evidence["source"]


def test_a_clamp_lost_next_to_one_in_float32_is_named():
    found = _found(clamp.run(), "NAN_BORN_IN_FORWARD")
    assert found and found[0].evidence["operation"] == "log(1 - sigmoid)"


def test_the_log_softmax_and_eps_twins_are_silent():
    for case in (logsm, clamp):
        mon = case.run(fixed=True)
        assert not _problems(mon)
        assert mon.run.observed.unguarded_logs == []


def test_a_log_softmax_that_never_meets_zero_is_left_alone():
    def loss(logits, targets):
        return -(F.one_hot(targets, 10) * torch.log(F.softmax(logits, 1))).sum(1).mean()
    mon = _run(loss, 150, optimizer="adam", lr=3e-3)
    assert mon.run.observed.unguarded_logs                   # the hazard is read...
    assert not _problems(mon)                                # ...but no NaN came: silent


def test_a_nan_in_the_first_batches_is_not_blamed_on_an_unguarded_log():
    # a NaN fed in on step 3, before the model grew confident: fewer finite steps than
    # UNGUARDED_FINITE_STEPS, so the unguarded log is not named its origin
    def loss(logits, targets):
        return -(F.one_hot(targets, 10) * torch.log(F.softmax(logits, 1))).sum(1).mean()

    def poisoned(data):
        for step, (xb, yb) in enumerate(data):
            if step == 3:
                xb = xb.clone()
                xb[0, 0] = float("nan")
            yield xb, yb
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    mon = train_watched(model, opt, loss, poisoned(batches(x, y, 30)))
    assert mon.run.observed.unguarded_logs
    assert "NAN_LOSS" in _problems(mon)
    assert not [f for f in _found(mon, "NAN_BORN_IN_FORWARD") if f.evidence.get("inferred")]


def _log_of(make):
    x = torch.randn(6, 4, requires_grad=True)
    out = make(x)
    return unguarded(out.grad_fn.name().replace("Backward0", "").lower(), out.grad_fn,
                     out.dtype)


def test_the_unguarded_log_reader_follows_clamps_and_complements():
    assert _log_of(lambda x: torch.log(x.softmax(1))) == "log(softmax)"
    assert _log_of(lambda x: torch.log(x.softmax(1)[torch.arange(6), 0])) == "log(softmax)"
    assert _log_of(lambda x: torch.log(1 - torch.sigmoid(x))) == "log(1 - sigmoid)"
    assert _log_of(lambda x: torch.log(1 - torch.sigmoid(x).clamp(1e-8, 1 - 1e-8))) == \
        "log(1 - sigmoid)"                                   # 1 - 1e-8 is 1.0 in float32
    assert _log_of(lambda x: torch.log1p(-torch.sigmoid(x))) == "log1p(1 - sigmoid)"


def test_guarded_logs_are_not_read_as_unguarded():
    assert _log_of(lambda x: torch.log(torch.sigmoid(x).clamp(1e-8, 1 - 1e-8))) is None
    assert _log_of(lambda x: torch.log(1 - torch.sigmoid(x).clamp(1e-7, 1 - 1e-7))) is None
    assert _log_of(lambda x: torch.log(torch.sigmoid(x) + 1e-8)) is None
    assert _log_of(lambda x: torch.log(x.exp())) is None           # no probability
    x64 = torch.randn(6, 4, dtype=torch.float64, requires_grad=True)
    out = torch.log(1 - torch.sigmoid(x64).clamp(1e-8, 1 - 1e-8))   # holds in float64
    assert unguarded("log", out.grad_fn, out.dtype) is None


# --- LOSS_MEAN_OVER_CLASSES ---------------------------------------------------------------

def _hand_cross_entropy(per_sample):
    def loss(logits, targets):
        terms = -F.one_hot(targets, 10).float() * F.log_softmax(logits, 1)
        return terms.sum(1).mean() if per_sample else terms.mean()
    return loss


def test_a_focal_loss_averaged_over_its_classes_is_named():
    mon = focal.run()
    found = _found(mon, "LOSS_MEAN_OVER_CLASSES")
    assert found and found[0].evidence["classes"] == 10 and found[0].evidence["rows"] == 64


def test_a_cross_entropy_averaged_over_its_classes_under_sgd_is_named():
    mon = _run(_hand_cross_entropy(per_sample=False), 150, lr=0.1)
    assert mon.test_accuracy < 0.6
    assert _found(mon, "LOSS_MEAN_OVER_CLASSES")


def test_the_summed_twins_are_silent():
    assert not _problems(focal.run(fixed=True))
    mon = _run(_hand_cross_entropy(per_sample=True), 150, lr=0.1)
    assert mon.test_accuracy > 0.8 and "LOSS_MEAN_OVER_CLASSES" not in _problems(mon)


def test_the_class_mean_under_adam_is_left_alone():
    mon = _run(_hand_cross_entropy(per_sample=False), 150, optimizer="adam", lr=3e-3)
    problems = _problems(mon)                                # (read at findings())
    assert mon.run.observed.class_mean_losses                # the form is read...
    assert mon.test_accuracy > 0.8
    assert "LOSS_MEAN_OVER_CLASSES" not in problems          # ...Adam divides the scale out


def test_a_multi_label_bce_averaged_over_its_classes_is_left_alone():
    def loss(logits, targets):
        multi_hot = F.one_hot(targets, 10).float()
        multi_hot[:, 0] = 1.0                                 # a second label on every row
        p = torch.sigmoid(logits)
        return -(multi_hot * torch.log(p + 1e-7)
                 + (1 - multi_hot) * torch.log(1 - p + 1e-7)).mean()
    mon = _run(loss, 60, lr=0.05)
    assert "LOSS_MEAN_OVER_CLASSES" not in _problems(mon)
    assert mon.run.observed.class_mean_losses == []


# --- LOSS_CONSTANT_ON_EMPTY_TARGETS -------------------------------------------------------

def _dice_run(loss, steps=60):
    torch.manual_seed(0)
    x, masks = dice.stroke_masks()
    model = mlp(64, 128, 64)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    return train_watched(model, opt, loss, batches(x, masks, steps))


def test_a_dice_smoothed_only_below_over_empty_masks_is_named():
    found = _found(dice.run(), "LOSS_CONSTANT_ON_EMPTY_TARGETS")
    assert found and found[0].evidence["rows"] == 64
    assert 20 <= found[0].evidence["empty_rows"] <= 44      # about half the images


def test_an_iou_smoothed_only_below_is_named_too():
    def loss(logits, masks):
        p = torch.sigmoid(logits)
        overlap = (p * masks).sum(1)
        union = p.sum(1) + masks.sum(1) - overlap
        return (1 - overlap / (union + 1e-6)).mean()
    assert _found(_dice_run(loss), "LOSS_CONSTANT_ON_EMPTY_TARGETS")


def test_the_smoothed_dice_twin_is_silent():
    assert "LOSS_CONSTANT_ON_EMPTY_TARGETS" not in _problems(dice.run(fixed=True))


def test_a_dice_beside_a_bce_is_left_alone():
    bce = nn.BCEWithLogitsLoss()

    def loss(logits, masks):
        return dice.dice_loss(False)(logits, masks) + bce(logits, masks)
    assert "LOSS_CONSTANT_ON_EMPTY_TARGETS" not in _problems(_dice_run(loss))


def test_a_dice_without_empty_masks_is_left_alone():
    def digits_only(data):
        for xb, mb in data:
            keep = mb.sum(1) > 0
            yield xb[keep], mb[keep]
    torch.manual_seed(0)
    x, masks = dice.stroke_masks()
    model = mlp(64, 128, 64)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    mon = train_watched(model, opt, dice.dice_loss(False), digits_only(batches(x, masks, 60)))
    assert "LOSS_CONSTANT_ON_EMPTY_TARGETS" not in _problems(mon)
    assert mon.run.observed.empty_overlap_targets[0][2] == 0


def test_the_overlap_reader_reads_the_unsmoothed_ratio_only():
    p = torch.rand(4, 16, requires_grad=True)
    m = (torch.rand(4, 16) > 0.5).float()
    overlap, areas = (p * m).sum(1), p.sum(1) + m.sum(1)
    assert overlap_mask((1 - 2 * overlap / (areas + 1.0)).mean().grad_fn)[0] == 4
    assert overlap_mask((1 - (2 * overlap + 1.0) / (areas + 1.0)).mean().grad_fn) is None
    assert overlap_mask(F.binary_cross_entropy(p, m).grad_fn) is None


# --- wiring ------------------------------------------------------------------------------

def test_the_kept_mask_is_released_at_findings():
    mon = focal.run(steps=20)
    assert mon.around.origins.class_means.kept is not None   # held until findings()
    mon.findings()
    assert mon.around.origins.class_means.kept is None
    assert mon.run.observed.class_mean_losses == [(0, 64, 10)]


def test_saved_and_loaded_rows_read_back(tmp_path):
    import nndebug as nd
    path = tmp_path / "run.nddebug"
    for case, names in ((sign, ("picked_probability_losses",)),
                        (focal, ("class_mean_losses",)),
                        (dice, ("empty_overlap_targets",)),
                        (clamp, ("unguarded_logs",))):
        mon = case.run(steps=30)
        mon.findings()
        mon.save(path)
        observed = nd.load_run(path).run.observed
        for name in names:
            kept = getattr(mon.run.observed, name)
            assert kept, name
            assert [list(r) for r in getattr(observed, name)] == [list(r) for r in kept]

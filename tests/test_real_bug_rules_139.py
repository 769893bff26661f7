"""Real-bug batch 139 (training-loop control): which weights a best-checkpoint restore after
training loads (``monitor/restored_checkpoints.py``). Restoring the best validation pass's
weights turns OVERFITTING into info (the run answered it); restoring a late pass, far above
the best, is BEST_CHECKPOINT_NOT_BEST; loading weights the run never validated says
nothing either way."""
import copy
import math

import pytest

torch = pytest.importorskip("torch")

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs._loop_control import (evaluate, splits,  # noqa: E402
                                                training_epochs, wide_mlp)

pytestmark = pytest.mark.usefixtures("one_torch_thread")
EPOCHS, BATCH = 45, 32
STEPS = EPOCHS * (600 // BATCH)


def train(choose, asked_before_the_load=False):
    """Noisy digits that over-fit after ~12 epochs; after the loop, ``choose`` picks the
    weights to load: "best" (lowest validation loss), "overwritten" (a reference the loop
    resets every epoch, so every pass "beats" it: the last epoch's weights), "fresh" (a
    model never trained)."""
    torch.manual_seed(0)
    train_rows, (x_val, y_val), _ = splits(noise=0.4, seed=0)
    model = wide_mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    best, saved = math.inf, None
    with nd.watch(model, optimizer) as mon:
        for _, val_loss, _ in training_epochs(model, optimizer, train_rows, STEPS, BATCH, mon,
                                              lambda m: evaluate(m, x_val, y_val)):
            if choose == "best" and val_loss < best:
                best, saved = val_loss, copy.deepcopy(model.state_dict())
            elif choose == "overwritten":
                reference = math.inf    # the bug: the reference is reset inside the loop
                if val_loss < reference:
                    saved = copy.deepcopy(model.state_dict())
        if choose == "fresh":
            saved = wide_mlp().state_dict()
        if asked_before_the_load:
            mon.findings()     # as a Trainer saving its checkpoints (and the monitor's state)
        model.load_state_dict(saved)
    return mon


def by_code(mon):
    return {f.code: f for f in mon.findings()}


def test_restoring_the_best_pass_answers_overfitting():
    found = by_code(train("best"))
    assert found["OVERFITTING"].severity == "info"
    restored = found["OVERFITTING"].evidence["restored_checkpoint"]
    assert restored["near_best"] and restored["restored_step"] == restored["best_step"]
    assert "BEST_CHECKPOINT_NOT_BEST" not in found


def test_restoring_a_late_pass_is_named():
    found = by_code(train("overwritten"))
    finding = found.get("BEST_CHECKPOINT_NOT_BEST")
    assert finding is not None and finding.severity == "warning", found
    assert finding.evidence["restored_val"] > 1.1 * finding.evidence["best_val"]


def test_a_load_after_findings_were_asked_for_is_still_read():
    """A Trainer that reloads its best checkpoint after the last step has asked for the
    findings before (saving the monitor's state with each checkpoint, real-bug batch 145):
    the load makes them be worked out again."""
    found = by_code(train("overwritten", asked_before_the_load=True))
    assert "BEST_CHECKPOINT_NOT_BEST" in found, found


def test_loading_weights_never_validated_says_nothing_of_the_choice():
    found = by_code(train("fresh"))
    assert "BEST_CHECKPOINT_NOT_BEST" not in found
    assert found["OVERFITTING"].severity == "warning"
    assert found["OVERFITTING"].evidence["restored_checkpoint"] is None


def _trainer_like(keep, evaluations=5, per_evaluation=19):
    """A trainer's loop (real-bug batch 145): it evaluates between two steps, saves a
    checkpoint per evaluation, hands the validation loss to the NEXT step (after telling the
    monitor the weights it evaluated, ``weights_validated``), and loads its "best" checkpoint
    after the last step. Clean digits: the validation loss falls at every evaluation.
    ``keep``: "worst" (the highest error kept as the best, greater_is_better the wrong way)
    or "best"."""
    torch.manual_seed(0)
    (x, y), (x_val, y_val), _ = splits(seed=0)
    model = wide_mlp(64)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    saved, pending = [], None
    generator = torch.Generator().manual_seed(0)
    with nd.watch(model, optimizer) as mon:
        for _ in range(evaluations):
            for _ in range(per_evaluation):
                rows = torch.randint(0, len(x), (32,), generator=generator)
                optimizer.zero_grad()
                loss = torch.nn.functional.cross_entropy(model(x[rows]), y[rows])
                loss.backward()
                optimizer.step()
                mon.step(loss, val_loss=pending)
                pending = None
            pending, _ = evaluate(model, x_val, y_val)
            mon.weights_validated()
            saved.append((pending, copy.deepcopy(model.state_dict())))
        chosen = max(saved, key=lambda s: s[0]) if keep == "worst" else \
            min(saved, key=lambda s: s[0])
        model.load_state_dict(chosen[1])
    return mon


def test_the_worst_pass_loaded_as_best_is_named_without_a_late_rise():
    found = by_code(_trainer_like("worst"))
    finding = found.get("BEST_CHECKPOINT_NOT_BEST")
    assert finding is not None and finding.evidence["worst"], found
    assert finding.evidence["end_val"] <= finding.evidence["best_val"] * 1.1   # no rise


def test_the_best_pass_loaded_by_a_trainer_says_nothing():
    found = by_code(_trainer_like("best"))
    assert "BEST_CHECKPOINT_NOT_BEST" not in found
    assert not [f for f in found.values() if f.severity != "info"], found

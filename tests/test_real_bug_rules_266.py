"""Real-bug batch 266 (early stopping and checkpoint choice in first training scripts): a
loop that takes the weights at its best validation pass (``model.state_dict()``, seen by
``monitor/restored_checkpoints.py``) and never loads them back ends with the over-fitted
last weights: BEST_WEIGHTS_NOT_RESTORED (``rules/unrestored_best.py``). Loading them back,
saving every epoch (a resume checkpoint), or a run whose validation loss never rose far
above its best says nothing. The observation is of torch modules only (a state_dict
pre-hook): no other framework's twin."""
import copy

import pytest

torch = pytest.importorskip("torch")

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs._early_stopping import (BATCH, evaluate, setup,  # noqa: E402
                                                  train_epoch)

pytestmark = pytest.mark.usefixtures("one_torch_thread")
EPOCHS = 20


def train(keep, restore, epochs=EPOCHS):
    """The batch-266 set-up (noisy digits that over-fit after about 11 epochs). ``keep``:
    "best" (a deep copy of state_dict() at each new lowest validation loss) or "every" (one
    per epoch, a resume checkpoint); ``restore``: load the kept best back inside the watch."""
    train_rows, validation, _, model, optimizer = setup()
    best, kept = float("inf"), None
    with nd.watch(model, optimizer) as mon:
        for _ in range(epochs):
            val_loss, _ = train_epoch(model, optimizer, train_rows, BATCH, mon,
                                      lambda m: evaluate(m, *validation))
            if keep == "every":
                kept = copy.deepcopy(model.state_dict())
            elif val_loss < best:
                best, kept = val_loss, copy.deepcopy(model.state_dict())
        if restore:
            model.load_state_dict(kept)
    return mon


def codes(mon):
    return {f.code: f for f in mon.findings()}


def test_best_weights_kept_and_never_loaded_back_are_named():
    found = codes(train("best", restore=False))
    finding = found.get("BEST_WEIGHTS_NOT_RESTORED")
    assert finding is not None and finding.severity == "warning", found
    assert finding.evidence["end_val"] > 1.1 * finding.evidence["best_val"]
    assert finding.evidence["best_step"] < finding.evidence["end_step"]


def test_best_weights_loaded_back_say_nothing():
    found = codes(train("best", restore=True))
    assert "BEST_WEIGHTS_NOT_RESTORED" not in found
    assert "BEST_CHECKPOINT_NOT_BEST" not in found


def test_a_checkpoint_taken_every_epoch_is_no_choice_of_the_best():
    assert "BEST_WEIGHTS_NOT_RESTORED" not in codes(train("every", restore=False))


def test_a_short_run_that_never_rose_says_nothing():
    """Six epochs: the validation loss is still near its best at the end."""
    assert "BEST_WEIGHTS_NOT_RESTORED" not in codes(train("best", restore=False, epochs=6))


def test_the_monitors_own_reads_are_not_saves():
    mon = train("best", restore=True)
    mon.findings()                          # the rows are written when findings are asked for
    saves = [step for kind, step, _ in mon.run.observed.restored_checkpoints if kind == "save"]
    passes = [step for kind, step, _ in mon.run.observed.restored_checkpoints
              if kind == "validation"]
    assert 0 < len(saves) < len(passes)     # only the loop's copies at new bests

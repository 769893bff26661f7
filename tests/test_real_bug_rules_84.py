"""Real-bug batch 84 (optimizer configuration): LR_TOO_HIGH and LR_TOO_LOW widened
(``rules/learning_rate.py``), both read off the loss curve and the records already kept -
nothing new is observed.

LR_TOO_HIGH also when the first updates made the loss worse than it was before any update
(the median of steps 1..10 25% above step 0's) and the run ends well above its best window,
or when that median rose 1.5x above step 0's, with updates of a tenth of the weights or more:
an optimizer that survives a rate too high (Adam given a config's SGD rate of 1.0,
rajveermalviya/language-modeling#3). LR_TOO_LOW also when learning is poor and the loss is
still falling at the end, at three quarters or more of its first third's pace (no bend: a
Darknet-style rate divided by the batch on an averaged loss, andy-yun/pytorch-0.4-yolov3#46)
or after a schedule cut the rate to 1/20 by the run's middle (Keras' time decay counted in
batches, keras-team/keras#8086).

Named on the planted cases and on variants (AdamW at 1.0 on a wider LSTM, SGD at 1e-3 with
momentum, Adam at 1e-4, plain SGD at 1e-2, an exponential decay per batch meant per epoch);
silent on the fixed twins and on look-alikes: healthy Adam 1e-2, RMSprop 1e-3 and plain SGD
runs (RMSprop's large first steps), a cosine decay to zero and a StepLR, a curve whose pace
halved under a StepLR (it has bent), and labels shuffled under a fast decay (poor learning,
a loss that does not fall: no LR_TOO_LOW from the new path).
"""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import adam_given_a_learning_rate_of_one as adam_case  # noqa: E402
from benchmarks.real_bugs import (  # noqa: E402
    learning_rate_per_sample_on_an_averaged_loss as sample_case)
from benchmarks.real_bugs import time_decay_counted_in_batches as decay_case  # noqa: E402
from benchmarks.real_bugs._common import (batches, characters, classification, mlp,  # noqa: E402
                                          next_character_batches, next_id_loss)

pytestmark = pytest.mark.usefixtures("one_torch_thread")
HIGH, LOW = "LR_TOO_HIGH", "LR_TOO_LOW"


def _problems(mon):
    return {f.code: f for f in mon.findings() if f.severity in ("warning", "error")}


def _digits(optimizer_of, steps=300, schedule_of=None, shuffle_labels=False, seed=0):
    torch.manual_seed(seed)
    x, y = classification()
    if shuffle_labels:
        y = y[torch.randperm(len(y))]
    model = mlp()
    optimizer = optimizer_of(model.parameters())
    schedule = schedule_of(optimizer) if schedule_of else None
    loss_fn = nn.CrossEntropyLoss()
    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, steps, seed=seed):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            if schedule is not None:
                schedule.step()
            mon.step(loss)
    return mon


def _sonnets(optimizer_of, hidden=64, steps=300):
    torch.manual_seed(0)
    ids, vocab = characters()
    model = adam_case.CharLSTM(vocab, hidden=hidden)
    optimizer = optimizer_of(model.parameters())
    with nd.watch(model, optimizer) as mon:
        for xb, yb in next_character_batches(ids, steps, 32):
            optimizer.zero_grad()
            loss = next_id_loss(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


# --- LR_TOO_HIGH: the first updates made the loss worse ----------------------------------

def test_planted_adam_at_an_sgd_rate_is_named_and_its_twin_is_silent():
    found = _problems(adam_case.run())
    assert HIGH in found
    assert "worse at once" in found[HIGH].message
    assert not _problems(adam_case.run(fixed=True))


def test_adamw_at_one_on_a_wider_lstm_raises_the_loss_at_once():
    found = _problems(_sonnets(lambda p: torch.optim.AdamW(p, lr=1.0), hidden=96))
    assert HIGH in found


@pytest.mark.parametrize("optimizer_of", [
    lambda p: torch.optim.Adam(p, lr=1e-2),
    lambda p: torch.optim.RMSprop(p, lr=1e-3),      # large first steps, no bias correction
    lambda p: torch.optim.SGD(p, lr=0.05),
], ids=["adam-1e-2", "rmsprop-1e-3", "sgd-0.05"])
def test_healthy_rates_are_silent(optimizer_of):
    found = _problems(_digits(optimizer_of))
    assert HIGH not in found and LOW not in found


def test_a_healthy_adam_lstm_is_silent():
    assert not _problems(_sonnets(lambda p: torch.optim.Adam(p, lr=1e-2)))


# --- LR_TOO_LOW: still falling at the end -------------------------------------------------

def _notes(mon):
    return {f.code: f for f in mon.findings() if f.severity == "info"}


def test_planted_rate_divided_by_the_batch_gets_a_note_and_its_twin_nothing():
    # a note, not a warning: a loop that chose a slow rate on purpose draws the same curve
    # (relu_before_softmax's fixed twin, SGD 0.01 with momentum 0.5), so the curve alone
    # cannot tell the mistake from the choice
    mon = sample_case.run()
    assert LOW not in _problems(mon)
    found = _notes(mon)
    assert LOW in found and "late_drop" in found[LOW].evidence
    assert not found[LOW].evidence["rate_cut"]
    assert not _problems(sample_case.run(fixed=True))


def test_planted_decay_counted_in_batches_is_named_and_its_twin_is_silent():
    found = _problems(decay_case.run())
    assert LOW in found and found[LOW].evidence["rate_cut"]
    assert not _problems(decay_case.run(fixed=True))


@pytest.mark.parametrize("optimizer_of", [
    lambda p: torch.optim.SGD(p, lr=1e-3, momentum=0.9),
    lambda p: torch.optim.Adam(p, lr=1e-4),
    lambda p: torch.optim.SGD(p, lr=1e-2),
], ids=["sgd-momentum-1e-3", "adam-1e-4", "sgd-1e-2"])
def test_rates_too_low_for_the_run_get_a_note(optimizer_of):
    mon = _digits(optimizer_of)
    assert LOW not in _problems(mon)
    found = _notes(mon)
    assert LOW in found and "late_drop" in found[LOW].evidence


def test_an_exponential_decay_per_batch_meant_per_epoch_is_named():
    found = _problems(_digits(lambda p: torch.optim.SGD(p, lr=0.02, momentum=0.9),
                              schedule_of=lambda o: torch.optim.lr_scheduler.ExponentialLR(
                                  o, 0.97)))
    assert LOW in found


@pytest.mark.parametrize("schedule_of", [
    lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, 300),
    lambda o: torch.optim.lr_scheduler.StepLR(o, 100, 0.1),
], ids=["cosine-to-zero", "step-decay"])
def test_healthy_schedules_are_silent(schedule_of):
    mon = _digits(lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9), schedule_of=schedule_of)
    assert not _problems(mon)


def test_a_curve_whose_pace_halved_under_a_step_decay_has_bent():
    mon = _digits(lambda p: torch.optim.Adam(p, lr=2e-4), steps=150,
                  schedule_of=lambda o: torch.optim.lr_scheduler.StepLR(o, 100, 0.5))
    assert LOW not in _problems(mon)


def test_shuffled_labels_under_a_fast_decay_are_not_read_as_still_falling():
    mon = _digits(lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9), shuffle_labels=True,
                  schedule_of=lambda o: torch.optim.lr_scheduler.LambdaLR(
                      o, lambda t: 1 / (1 + 0.5 * t)))
    found = _problems(mon)
    assert LOW not in found or "late_drop" not in found[LOW].evidence


def test_a_run_too_short_for_a_curve_gets_no_verdict_from_the_new_paths():
    """Three steps of Adam at 1.0: no curve to read a rise, a rebound or a pace from."""
    found = _problems(_digits(lambda p: torch.optim.Adam(p, lr=1.0), steps=3))
    assert HIGH not in found or "worse at once" not in found[HIGH].message
    assert LOW not in found or "late_drop" not in found[LOW].evidence

"""Rules added for the fifteenth batch of reproduced public bug reports
(``benchmarks/real_bugs/``: rules/optimizer_restarts.py, rules/validation_gap.py,
rules/validation_inputs.py, rules/rng_reseeded.py, with monitor/optimizer_restarts.py,
monitor/validation_inputs.py and monitor/seed_calls.py): the bug planted and its healthy
twins."""
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from synthetic import blobs  # noqa: E402

import nndebug as nd  # noqa: E402
from nndebug.rules.optimizer_restarts import restart_steps  # noqa: E402
from nndebug.rules.rng_reseeded import repeated_seed  # noqa: E402
from nndebug.rules.validation_gap import validation_gap  # noqa: E402
from nndebug.rules.validation_inputs import in_train_mode, rescaled  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
STEPS = 150
EVERY = 10           # steps between two validations


def _model(norm=False, dropout=False):
    layers = [torch.nn.Linear(16, 32)]
    layers += [torch.nn.BatchNorm1d(32)] if norm else []
    layers += [torch.nn.ReLU()]
    layers += [torch.nn.Dropout(0.3)] if dropout else []
    return torch.nn.Sequential(*layers, torch.nn.Linear(32, 4))


def _validation_set():
    """256 draws around the training blobs' centres (blobs' seed 0)."""
    return next(iter(blobs(1, batch=256, seed=0)))


def _problems(mon):
    return {f.code: f for f in mon.findings() if f.severity in PROBLEMS}


def _findings(mon):
    return {f.code: f for f in mon.findings()}


def _train(*, relabel=None, rescale=1.0, shift=0.0, val_mode="eval", norm=False,
           dropout=False, optimizer_every=None, sgd=False, train_noise=0.0, train_scale=1.0,
           pseudo_labels=False, unit=False, train_shift=0.0):
    """A small MLP on the blobs (4 classes), validated every EVERY steps on fresh draws of the
    same blobs. ``relabel``: a permutation applied to the validation labels; ``rescale``,
    ``shift``: what the validation inputs are multiplied by and moved by; ``val_mode``:
    "eval" or "train" for the validation pass; ``optimizer_every``: build a new optimizer
    every that many steps; ``train_noise``: extra noise on the training inputs only (an
    augmentation); ``train_scale``: what the training inputs are multiplied by;
    ``pseudo_labels``: a no-gradient forward in training mode on every step, on inputs of
    another scale (a semi-supervised recipe's pseudo-labels); ``unit``: every input squashed
    into (0, 1) first (raw pixel-like data), ``train_shift``: what the training inputs are
    moved by after ``train_scale``. Returns the closed monitor."""
    torch.manual_seed(0)
    model = _model(norm, dropout)
    x_val, y_val = _validation_set()
    x_val = (torch.sigmoid(x_val) if unit else x_val) * rescale + shift
    if relabel is not None:
        y_val = torch.tensor(relabel)[y_val]

    def build():
        return torch.optim.SGD(model.parameters(), lr=0.02) if sgd else \
            torch.optim.Adam(model.parameters(), lr=2e-3)
    optimizer = build()
    noise = torch.Generator().manual_seed(5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with nd.watch(model, optimizer) as mon:
            for step, (xb, yb) in enumerate(blobs(STEPS), start=1):
                if optimizer_every and step > 1 and (step - 1) % optimizer_every == 0:
                    optimizer = build()
                if train_noise:
                    xb = xb + train_noise * torch.randn(xb.shape, generator=noise)
                xb = (torch.sigmoid(xb) if unit else xb) * train_scale + train_shift
                if pseudo_labels:
                    with torch.no_grad():
                        model(xb * 8.0)
                optimizer.zero_grad()
                loss = torch.nn.functional.cross_entropy(model(xb), yb)
                loss.backward()
                optimizer.step()
                val_loss = None
                if step % EVERY == 0:
                    if val_mode == "eval":
                        model.eval()
                    with torch.no_grad():
                        val_loss = torch.nn.functional.cross_entropy(model(x_val), y_val)
                    model.train()
                mon.step(loss, val_loss=val_loss)
    return mon


# --- VALIDATION_NEVER_IMPROVED ---------------------------------------------------------------
def test_validation_labels_numbered_differently_are_named():
    found = _problems(_train(relabel=[2, 0, 3, 1]))
    assert "VALIDATION_NEVER_IMPROVED" in found
    evidence = found["VALIDATION_NEVER_IMPROVED"].evidence
    assert evidence["val_best"] > evidence["train_end"]


def test_validation_with_the_same_labels_stays_silent():
    assert _problems(_train()) == {}


def test_validation_gap_needs_the_training_loss_to_fall_and_one_scale():
    steps = np.arange(60)
    falling = np.linspace(2.3, 0.2, 60)
    at = [10, 30, 50]                                  # the first one early in the fall

    def gap(val, curve=falling, val_steps=at):
        return validation_gap(steps, curve, val_steps, val)
    assert gap([2.4, 2.8, 3.5]) is not None                      # worse and worse
    assert gap([2.2, 2.2, 2.15]) is not None                     # stuck at the start
    assert gap([1.5, 0.8, 0.5]) is None                          # it learns
    assert gap([1.0, 0.6, 0.9]) is None                          # overfitting later
    assert gap([600.0, 580.0, 590.0]) is None                    # a sum, not a mean
    assert gap([2.3, 2.3, 2.3], curve=np.full(60, 2.3)) is None  # nothing learnt
    assert gap([2.4, 2.8]) is None                               # two points only
    assert gap([2.4, 2.8, 3.5], val_steps=[40, 50, 59]) is None  # first looked too late


def test_an_overfitting_run_is_not_named_as_never_improved():
    """A small training set learnt by heart: the validation loss falls, then rises."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 256), torch.nn.ReLU(),
                                torch.nn.Linear(256, 4))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    draws = blobs(2, batch=256, seed=0)
    next(draws)                                                    # the validation draws
    x, y = (t[:24] for t in next(draws))                           # 24 others to learn
    y = torch.where(torch.arange(24) % 3 == 0, (y + 1) % 4, y)      # a third mislabelled
    x_val, y_val = _validation_set()
    with nd.watch(model, optimizer) as mon:
        for step in range(1, 301):
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            val_loss = None
            if step % EVERY == 0:
                with torch.no_grad():
                    val_loss = torch.nn.functional.cross_entropy(model(x_val), y_val)
            mon.step(loss, val_loss=val_loss)
    assert "VALIDATION_NEVER_IMPROVED" not in _findings(mon)


def test_validation_never_improved_in_minigrad():
    """The rule reads the two loss curves only: the same verdict for a minigrad run."""
    mg = pytest.importorskip("minigrad")
    import minigrad.nn as mnn
    import minigrad.optim as moptim
    loss_fn = mnn.CrossEntropyLoss()
    x_val, y_val = _validation_set()
    found = {}
    for relabel in (None, [2, 0, 3, 1]):
        mg.manual_seed(0)
        model = mnn.Sequential(mnn.Linear(16, 32), mnn.ReLU(), mnn.Linear(32, 4))
        optimizer = moptim.Adam(model.parameters(), lr=2e-3)
        labels = y_val if relabel is None else torch.tensor(relabel)[y_val]
        xv, yv = mg.tensor(x_val.numpy()), mg.tensor(labels.numpy())
        with nd.watch(model, optimizer) as mon:
            for step, (xb, yb) in enumerate(blobs(STEPS), start=1):
                optimizer.zero_grad()
                loss = loss_fn(model(mg.tensor(xb.numpy())), mg.tensor(yb.numpy()))
                loss.backward()
                optimizer.step()
                val = loss_fn(model(xv), yv) if step % EVERY == 0 else None
                mon.step(loss, val_loss=val)
        found[relabel is None] = _problems(mon)
    assert "VALIDATION_NEVER_IMPROVED" in found[False]
    assert found[True] == {}


# --- VALIDATION_INPUTS_RESCALED ---------------------------------------------------------------
def test_validation_inputs_on_another_scale_are_named():
    found = _problems(_train(rescale=8.0, shift=5.0))
    assert "VALIDATION_INPUTS_RESCALED" in found
    evidence = found["VALIDATION_INPUTS_RESCALED"].evidence
    assert evidence["eval_std"] > 3 * evidence["train_std"]


def test_augmented_training_inputs_against_plain_validation_stay_silent():
    assert "VALIDATION_INPUTS_RESCALED" not in _findings(_train(train_noise=0.5))


def test_a_normalisation_missing_from_the_validation_transforms_is_named():
    """Normalize((0.5,), (0.5,)) in the training transforms only, on inputs in (0, 1):
    training inputs in (-1, 1), twice as spread as the raw validation ones (the healthy twin
    applies it to both)."""
    planted = _problems(_train(unit=True, train_scale=2.0, train_shift=-1.0))
    assert "VALIDATION_INPUTS_RESCALED" in planted
    train_share, eval_share = planted["VALIDATION_INPUTS_RESCALED"].evidence["negative_shares"]
    assert train_share > 0.2 and eval_share == 0.0
    assert "VALIDATION_INPUTS_RESCALED" not in _findings(
        _train(unit=True, train_scale=2.0, train_shift=-1.0, rescale=2.0, shift=-1.0))


def test_a_validation_set_from_a_drifting_stretch_of_centred_data_stays_silent():
    """Centred inputs on both sides, the validation ones moved 1.5 stds and squeezed to 0.56x
    (a forecaster validated on the end of a drifting standardised series, core variants 7):
    past SCALE_RATIO and SHIFT_STDS, but no skipped step looks like that."""
    std = float(_validation_set()[0].std())
    assert "VALIDATION_INPUTS_RESCALED" not in _findings(_train(rescale=0.56, shift=-1.5 * std))
    # the same move on raw data against centred training data is a skipped step
    assert "VALIDATION_INPUTS_RESCALED" in _problems(_train(rescale=8.0, shift=5.0))


def test_rescaled_asks_more_of_two_sides_of_one_kind():
    train = [(0.0, 1.0)] * 5
    drifted = [(-1.5, 0.56)] * 2
    assert rescaled(train, drifted) is not None                         # shares unknown
    assert rescaled(train, drifted, (0.5, 0.9)) is None                 # both centred
    assert rescaled(train, drifted, (0.5, 0.0)) is not None             # raw against centred
    assert rescaled(train, [(0.0, 4.0)] * 2, (0.5, 0.5)) is not None    # far apart: still
    assert rescaled(train, [(3.5, 1.0)] * 2, (0.5, 0.4)) is not None    # named


def test_no_gradient_forwards_outside_validation_steps_are_not_validation():
    """Pseudo-labels made without gradients, in training mode, on inputs of another scale,
    on every step: only the forwards of steps that pass val_loss are the validation's."""
    found = _findings(_train(norm=True, dropout=True, pseudo_labels=True))
    assert "VALIDATION_IN_TRAIN_MODE" not in found
    assert "VALIDATION_INPUTS_RESCALED" not in found


def test_rescaled_compares_spread_and_mean():
    train = [(0.0, 1.0)] * 5
    assert rescaled(train, [(4.9, 6.0)] * 2) is not None                # raw against scaled
    assert rescaled(train, [(0.1, 1.2)] * 2) is None                    # sampling noise
    assert rescaled(train, [(0.0, 1.5)] * 2) is None                    # within 1.75 times
    assert rescaled(train, [(0.0, 2.0)] * 2) is not None                # twice as spread
    assert rescaled(train, [(0.0, 0.2)] * 2) is not None                # squeezed
    assert rescaled(train, [(3.5, 1.0)] * 2) is not None                # moved
    assert rescaled(train, [(4.9, 6.0)]) is None                        # one evaluation only
    assert rescaled([(0.0, 0.0)] * 5, [(4.9, 6.0)] * 2) is None        # constant inputs


def test_a_run_without_validation_losses_takes_no_training_mode_forward():
    """No ``val_loss``: only eval-mode forwards are taken as evaluations (an unannounced
    one, ``test_unannounced_evaluations.py``); these ran in training mode, and the hook is
    gone when the monitor closes."""
    torch.manual_seed(0)
    model = _model()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in blobs(30):
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            with torch.no_grad():
                model(xb * 100)                 # an evaluation nobody reports
            mon.step(loss)
    assert mon.run.observed.validation_inputs == []
    assert mon.run.observed.unannounced_evaluations == []
    assert len(model._forward_pre_hooks) == 0


# --- VALIDATION_IN_TRAIN_MODE ----------------------------------------------------------------
def test_batch_norm_left_in_training_mode_for_validation_is_named():
    found = _findings(_train(val_mode="train", norm=True, dropout=True))
    assert found["VALIDATION_IN_TRAIN_MODE"].severity == "warning"
    assert found["VALIDATION_IN_TRAIN_MODE"].evidence["batchnorm_training"]


def test_dropout_alone_in_training_mode_is_only_noted():
    found = _findings(_train(val_mode="train", dropout=True))
    assert found["VALIDATION_IN_TRAIN_MODE"].severity == "info"


@pytest.mark.parametrize("norm,dropout,mode", [(True, True, "eval"), (False, False, "train")])
def test_evaluation_in_eval_mode_or_without_such_layers_stays_silent(norm, dropout, mode):
    assert "VALIDATION_IN_TRAIN_MODE" not in _findings(_train(val_mode=mode, norm=norm,
                                                               dropout=dropout))


def test_in_train_mode_asks_for_most_evaluations():
    assert in_train_mode([(0, 0, 1, True, False)] * 3) == (True, False)
    assert in_train_mode([(0, 0, 1, True, False), (0, 0, 1, False, False),
                          (0, 0, 1, False, False)]) == (False, False)
    assert in_train_mode([(0, 0, 1, True, True)]) == (False, False)     # one evaluation only


# --- OPTIMIZER_STATE_RESET -------------------------------------------------------------------
def test_an_optimizer_rebuilt_every_epoch_is_named():
    found = _problems(_train(optimizer_every=30))
    assert "OPTIMIZER_STATE_RESET" in found
    assert found["OPTIMIZER_STATE_RESET"].evidence["every"] == 30


def test_one_optimizer_for_the_run_stays_silent():
    assert "OPTIMIZER_STATE_RESET" not in _findings(_train())


def test_a_stateless_sgd_rebuilt_every_epoch_stays_silent():
    """Plain SGD keeps no state: rebuilding it changes nothing."""
    assert "OPTIMIZER_STATE_RESET" not in _findings(_train(optimizer_every=30, sgd=True))


def test_two_optimizers_stepped_in_turn_and_a_second_stage_stay_silent():
    """An encoder's and a head's optimizer, each built once and stepped every step, and a
    new optimizer for a second training stage: not a loop that rebuilds one."""
    torch.manual_seed(0)
    model = _model()
    first, head = model[0], model[2]
    encoder_opt = torch.optim.Adam(first.parameters(), lr=1e-2)
    head_opt = torch.optim.Adam(head.parameters(), lr=1e-2)
    with nd.watch(model) as mon:
        for step, (xb, yb) in enumerate(blobs(STEPS), start=1):
            if step == STEPS // 2:                           # stage two: one optimizer
                encoder_opt = torch.optim.Adam(model.parameters(), lr=1e-3)
                head_opt = None
            for opt in (encoder_opt, head_opt):
                if opt is not None:
                    opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            for opt in (encoder_opt, head_opt):
                if opt is not None:
                    opt.step()
            mon.step(loss)
    assert "OPTIMIZER_STATE_RESET" not in _findings(mon)
    assert len(restart_steps(mon.run.observed.optimizer_starts)) == 1


def test_restart_steps_count_distinct_later_starts():
    assert restart_steps([(0, "Adam"), (0, "Adam"), (25, "Adam"), (50, "Adam")]) == [25, 50]
    assert restart_steps([]) == []


def test_a_token_model_validated_in_training_mode_is_noted():
    """Token ids have no float input to measure; the layers' mode is still read."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Embedding(20, 16), torch.nn.Dropout(0.3),
                                torch.nn.Flatten(), torch.nn.Linear(64, 4))
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    ids = torch.randint(0, 20, (256, 4), generator=torch.Generator().manual_seed(0))
    labels = ids[:, 0] % 4
    with nd.watch(model, optimizer) as mon:
        for step in range(1, 81):
            batch = torch.randint(0, 256, (32,))
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(ids[batch]), labels[batch])
            loss.backward()
            optimizer.step()
            val_loss = None
            if step % EVERY == 0:
                with torch.no_grad():                  # model.eval() forgotten
                    val_loss = torch.nn.functional.cross_entropy(model(ids), labels)
            mon.step(loss, val_loss=val_loss)
    found = _findings(mon)
    assert found["VALIDATION_IN_TRAIN_MODE"].severity == "info"
    assert "VALIDATION_INPUTS_RESCALED" not in found


# --- RNG_RESEEDED ----------------------------------------------------------------------------
def _seeded_run(seeds):
    """The blobs MLP for STEPS steps, with torch.manual_seed(seeds(step)) called after each
    step where ``seeds`` returns a seed (None: no call)."""
    torch.manual_seed(0)
    model = _model(dropout=True)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    with nd.watch(model, optimizer) as mon:
        for step, (xb, yb) in enumerate(blobs(STEPS), start=1):
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
            seed = seeds(step)
            if seed is not None:
                torch.manual_seed(seed)
    return mon


def test_the_same_seed_set_after_every_epoch_is_named():
    found = _problems(_seeded_run(lambda step: 0 if step % 30 == 0 else None))
    assert "RNG_RESEEDED" in found
    assert found["RNG_RESEEDED"].evidence["calls"] == 5


@pytest.mark.parametrize("seeds", [
    lambda step: None,                                         # seeded once, before training
    lambda step: step // 30 if step % 30 == 0 else None,       # seed + epoch: a new one each
    lambda step: 1 if step == STEPS // 2 else None,            # a second stage seeds once
], ids=["once", "per-epoch-seed", "one-stage"])
def test_seeding_that_repeats_nothing_stays_silent(seeds):
    assert "RNG_RESEEDED" not in _findings(_seeded_run(seeds))


def test_watch_gives_torch_manual_seed_back():
    original = torch.manual_seed
    _seeded_run(lambda step: 0 if step % 30 == 0 else None)
    assert torch.manual_seed is original and torch.random.manual_seed is original


def test_repeated_seed_counts_steps_not_calls():
    assert repeated_seed([(5, 0), (5, 0), (5, 0)]) is None          # one step, many calls
    assert repeated_seed([(5, 0), (9, 0), (12, 0)]) == (0, [5, 9, 12])
    assert repeated_seed([(5, 0), (9, 1), (12, 2)]) is None
    assert repeated_seed([]) is None

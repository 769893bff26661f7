"""Training started again from scratch inside one watch (real-bug batch 143: active-learning
loops that re-initialise their network each round and retrain on the grown labelled set).

Two things read such a run wrongly. The update of a recorded step was the weights when the
step's hooks went on minus the weights after it, so a ``reset_parameters()`` between two
steps counted as one update of 141% of the weights (LR_TOO_HIGH); it is now taken from the
optimizer's own step (``monitor/step_snapshot.py``). And the loss back at its start after
each re-initialisation read as LOSS_DIVERGING; the fresh draws are now found among the
writes between optimizer steps (``curve.fresh_starts``), and a loss that rose above its best
only because training started again, and has come down since, is no divergence. A run
whose last round really diverges is still named."""
from types import SimpleNamespace

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

from benchmarks.real_bugs._common import classification as digits, mlp  # noqa: E402
import nndebug as nd  # noqa: E402
from nndebug.rules.curve import fresh_starts  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _reinitialise(model, optimizer):
    for layer in model.modules():
        if hasattr(layer, "reset_parameters"):
            layer.reset_parameters()
    optimizer.state.clear()


def _rounds(rounds=6, per_round=60, lr=3e-3, last_lr=None, seed=0):
    """An active-learning-like loop: each round re-initialises the network and trains it on
    a labelled set that grows by 60 rows a round (``last_lr``: the last round's rate)."""
    torch.manual_seed(seed)
    x, y = digits()
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(x))
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    with nd.watch(model, optimizer) as mon:
        for round_ in range(rounds):
            _reinitialise(model, optimizer)
            if last_lr is not None and round_ == rounds - 1:
                for group in optimizer.param_groups:
                    group["lr"] = last_lr
            labelled = order[:100 + 60 * round_]
            for _ in range(per_round):
                rows = rng.choice(labelled, 32)
                optimizer.zero_grad()
                loss = F.cross_entropy(model(x[rows]), y[rows])
                loss.backward()
                optimizer.step()
                mon.step(loss)
    return mon


def test_retraining_from_scratch_each_round_is_silent():
    assert not _problems(_rounds()) & {"LR_TOO_HIGH", "LOSS_DIVERGING", "LOSS_OSCILLATING",
                                       "LOSS_PLATEAU"}


def test_retraining_from_scratch_is_silent_at_other_seeds():
    for seed in (1, 2):
        assert not _problems(_rounds(seed=seed)) & {"LR_TOO_HIGH", "LOSS_DIVERGING",
                                                    "LOSS_PLATEAU"}


def test_the_fresh_draws_are_found_with_their_period():
    mon = _rounds()
    mon.findings()                    # the sampled weights come to the host for findings
    ctx = SimpleNamespace(run=mon.run, curve_steps=np.arange(mon.run.n_steps),
                          _once=lambda key, compute: compute())
    assert fresh_starts(ctx) == [60, 120, 180, 240, 300]


def test_a_last_round_that_blows_up_is_still_named():
    problems = _problems(_rounds(last_lr=0.5))
    assert problems & {"LR_TOO_HIGH", "LOSS_DIVERGING"}, problems


def test_a_last_round_that_does_not_learn_is_not_hidden():
    """The last round stays at chance: the run ends far above the earlier rounds' best, and
    that last round did not come down from its fresh draw (as without the fresh starts, the
    rise is named)."""
    problems = _problems(_rounds(last_lr=1e-7))
    assert problems & {"LOSS_PLATEAU", "LOSS_AT_CHANCE", "LR_TOO_LOW", "LOSS_DIVERGING"}, \
        problems


def test_the_update_is_the_optimizers_own():
    """Noise written into the weights before every optimizer step (no fresh start, just a
    write the loop makes) is no part of the recorded update any more."""
    torch.manual_seed(0)
    x, y = digits()
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    with nd.watch(model, optimizer, overhead=None) as mon:
        for step in range(12):
            rows = torch.arange(32) + 32 * step
            loss = F.cross_entropy(model(x[rows]), y[rows])
            optimizer.zero_grad()
            loss.backward()
            with torch.no_grad():
                for p in model.parameters():
                    p.add_(torch.randn_like(p))          # a write of the loop's own
            optimizer.step()
            mon.step(loss)
    ratios = [float(np.nanmax(r.update_norm / r.param_norm)) for r in mon.run.records
              if r.update_norm is not None]
    assert ratios and max(ratios) < 0.05, ratios


def _ctx(rows, last_step=400):
    return SimpleNamespace(run=SimpleNamespace(observed=SimpleNamespace(rewritten_weights=rows)),
                           curve_steps=np.arange(last_step), _once=lambda key, compute: compute())


def test_fresh_starts_need_new_draws_on_several_writes():
    draws = [(59 + 60 * k, 100.0, 1.8) for k in range(3)]
    assert fresh_starts(_ctx(draws)) == [60, 120, 180, 240, 300, 360]   # carried on
    assert fresh_starts(_ctx(draws[:1])) == []                          # one: a bug's re-init?
    ema = [(24 + 25 * k, 20.0, 0.15) for k in range(6)]                  # an EMA copied in
    assert fresh_starts(_ctx(ema)) == []
    restores = [(9 + 10 * k, 12.0, 0.0) for k in range(4)]               # a saved state
    assert fresh_starts(_ctx(restores)) == []
    small = [(59 + 60 * k, 1.0, 1.8) for k in range(3)]                  # clipping-sized
    assert fresh_starts(_ctx(small)) == []
    irregular = [(s, 100.0, 1.8) for s in (50, 130, 170)]               # not carried on
    assert fresh_starts(_ctx(irregular)) == [51, 131, 171]
    sized = [(59 + 60 * k, 100.0, 1.8, 1.2) for k in range(3)]           # a draw's size
    assert fresh_starts(_ctx(sized))[:3] == [60, 120, 180]
    shrunk = [(49 + 50 * k, 40.0, 2.5, 0.6 ** (k + 1)) for k in range(3)]   # an average
    assert fresh_starts(_ctx(shrunk)) == []                # over too many clients (batch 117)

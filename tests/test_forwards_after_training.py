"""The no-gradient forwards after the last training step (``monitor/forwards_after_training.py``,
``rules/after_training.py``): an evaluation run with batch norm still in training mode
(VALIDATION_IN_TRAIN_MODE) and Monte Carlo dropout passes with dropout off
(MC_DROPOUT_SAMPLED_IN_EVAL_MODE) are named; the healthy look-alikes a careless rule would
flag stay silent: the same evaluation in eval mode, statistics recomputed on purpose
(``update_bn``, a refresh followed by an eval-mode evaluation), a GAN sampling in training
mode between its steps too, Monte Carlo dropout done right, one input evaluated a few times,
a model without dropout run many times on one input, test-time augmentation (new inputs, or
one tensor changed in place), fresh batches of one size (memory reused by the allocator),
and one stray forward."""
import json
import warnings

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

import nndebug as nd  # noqa: E402
from nndebug import runfile  # noqa: E402
from nndebug.observed import Observed  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
TRAIN_MODE, MC = "VALIDATION_IN_TRAIN_MODE", "MC_DROPOUT_SAMPLED_IN_EVAL_MODE"
STEPS = 30


def _model(seed=0):
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(16, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Dropout(0.3),
                         nn.Linear(32, 4))


def _data(n=256, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 16, generator=g)
    return x, (x[:, :4].argmax(1))


def _train(after, between=None, model=None, steps=STEPS):
    """A small classifier trained under watch; ``after(model, x)`` runs inside the block after
    the last step, ``between(model, step)`` after each step's mon.step."""
    model = model if model is not None else _model()
    x, y = _data()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for step in range(steps):
            index = torch.arange(step * 32, step * 32 + 32) % len(x)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x[index]), y[index])
            loss.backward()
            optimizer.step()
            mon.step(loss)
            if between is not None:
                between(model, step)
        after(model, x)
    return mon


def _codes(mon):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _predict_in_batches(model, x, batch=64):
    with torch.no_grad():
        return torch.cat([model(x[i:i + batch]) for i in range(0, len(x), batch)])


# --- named -------------------------------------------------------------------------------
def test_predictions_collected_in_training_mode_are_named():
    codes = _codes(_train(lambda model, x: _predict_in_batches(model, x)))
    assert TRAIN_MODE in codes


def test_images_rendered_one_by_one_in_training_mode_are_named():
    def render(model, x):
        with torch.no_grad():
            for row in x[:8]:
                model(row[None])          # a batch of one, normalised against itself
    torch.manual_seed(0)
    images = nn.Sequential(nn.Unflatten(1, (1, 4, 4)), nn.Conv2d(1, 8, 3, padding=1),
                           nn.BatchNorm2d(8), nn.ReLU(), nn.Flatten(), nn.Linear(128, 4))
    codes = _codes(_train(render, model=images))
    assert TRAIN_MODE in codes
    assert "BATCHNORM_TINY_BATCH" not in codes   # no training step saw a tiny batch


def test_monte_carlo_passes_in_eval_mode_are_named():
    def passes(model, x):
        model.eval()
        with torch.no_grad():
            torch.stack([model(x[:64]).softmax(1) for _ in range(20)])
    assert MC in _codes(_train(passes))


def test_monte_carlo_passes_between_steps_are_named():
    def passes(model, step):
        if step == STEPS // 2:
            model.eval()
            with torch.no_grad():
                for _ in range(10):
                    model(probe)
            model.train()
    probe = torch.randn(32, 16)
    assert MC in _codes(_train(lambda model, x: None, between=passes))


# --- silent ------------------------------------------------------------------------------
def test_predictions_in_eval_mode_are_silent():
    def evaluate(model, x):
        model.eval()
        _predict_in_batches(model, x)
    assert not _codes(_train(evaluate)) & {TRAIN_MODE, MC}


def test_statistics_recomputed_by_update_bn_are_silent():
    def recompute(model, x):
        torch.optim.swa_utils.update_bn([x[i:i + 64] for i in range(0, len(x), 64)], model)
    assert TRAIN_MODE not in _codes(_train(recompute))


def test_a_refresh_followed_by_an_eval_mode_evaluation_is_silent():
    def refresh_then_evaluate(model, x):
        _predict_in_batches(model, x)     # AdaBN-style: statistics from the new data
        model.eval()
        _predict_in_batches(model, x)
    assert TRAIN_MODE not in _codes(_train(refresh_then_evaluate))


def test_a_loop_that_samples_in_training_mode_between_steps_too_is_silent():
    noise = torch.randn(16, 16)

    def sample(model, step):
        if step % 10 == 9:
            with torch.no_grad():
                model(noise)              # a GAN's fixed-noise grid, training mode
    after = lambda model, x: sample(model, 9)  # noqa: E731  (and once more at the end)
    assert TRAIN_MODE not in _codes(_train(after, between=sample))


def test_monte_carlo_dropout_done_right_is_silent():
    def passes(model, x):
        model.eval()
        for m in model.modules():
            if isinstance(m, nn.Dropout):
                m.train()
        with torch.no_grad():
            torch.stack([model(x[:64]).softmax(1) for _ in range(20)])
    assert not _codes(_train(passes)) & {TRAIN_MODE, MC}


def test_one_input_evaluated_for_three_metrics_is_silent():
    def metrics(model, x):
        model.eval()
        with torch.no_grad():
            for _ in range(3):            # loss, accuracy, calibration: a forward each
                model(x)
    assert MC not in _codes(_train(metrics))


def test_a_model_without_dropout_run_many_times_is_silent():
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))

    def timing(model, x):
        model.eval()
        with torch.no_grad():
            for _ in range(50):           # a latency measurement
                model(x[:1])
    assert MC not in _codes(_train(timing, model=model))


def test_test_time_augmentation_is_silent():
    def augmented(model, x):
        model.eval()
        g = torch.Generator().manual_seed(1)
        with torch.no_grad():
            for _ in range(10):           # a new noisy copy each pass
                model(x[:64] + 0.1 * torch.randn(64, 16, generator=g))
            batch = x[:64].clone()
            for _ in range(10):           # one tensor jittered in place between passes
                batch.add_(0.1 * torch.randn(64, 16, generator=g))
                model(batch)
    assert MC not in _codes(_train(augmented))


def test_fresh_batches_of_one_size_are_silent():
    def batches(model, x):
        model.eval()
        with torch.no_grad():
            for i in range(0, len(x), 32):
                model(x[i:i + 32].clone())   # freed each pass: the allocator reuses the block
    assert MC not in _codes(_train(batches))


def test_one_stray_forward_in_training_mode_is_silent():
    def one(model, x):
        with torch.no_grad():
            model(x[:64])
    assert TRAIN_MODE not in _codes(_train(one))


def test_the_hook_goes_at_close_and_rows_survive_json():
    model = _model()
    mon = _train(lambda model, x: _predict_in_batches(model, x), model=model)
    assert not model._forward_pre_hooks
    rows = mon.run.observed.forwards_after_training
    assert len(rows) == 1 and rows[0][0] == STEPS and rows[0][1] == 4 and rows[0][2] == 4
    observed = Observed()
    observed.forwards_after_training.extend(rows)
    back = runfile.decode_observed(json.loads(json.dumps(runfile._encode_observed(observed),
                                                         allow_nan=False)))
    assert back.forwards_after_training == observed.forwards_after_training

"""VALIDATION_INPUTS_AUGMENTED from evaluations a loop never announces with ``val_loss``.

Real-bug batch 265 (https://github.com/zoogzog/chexnet/issues/27): the validation data set
is built with the training transform list (RandomResizedCrop, flips), and the loop scores
it by accuracy every few epochs without ever passing ``val_loss`` to ``mon.step``. The
random-draw observer only took announced validations, so the same held-out images coming
back cropped anew at every evaluation went unseen. It now also keeps the first rows of the
first two evaluations run in eval mode under no_grad between training steps of a loop
that passes no ``val_loss`` (the evaluations ``monitor/validation_inputs.py`` calls
unannounced).

Planted: held-out digits shifted by a random pixel offset (a random crop) or given fresh
noise at every eval-mode evaluation, no ``val_loss``: named. Healthy: the same loop
evaluating the untouched held-out digits; evaluating a fresh random batch of held-out
digits each time (other samples, not the same ones changed); the random crop applied in
training mode (a sampling or pseudo-labelling pass, not taken as an evaluation); a single
randomly cropped evaluation after the last step (no pair to compare). Torch only: the hook is the torch
monitor's.
"""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs._common import batches, classification  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")

STEPS = 60
EVERY = 10
CODE = "VALIDATION_INPUTS_AUGMENTED"


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def _shifted(images):
    """Each 8x8 image rolled by a random offset of up to one pixel each way (a random
    crop of a padded image)."""
    out = torch.empty_like(images)
    for i, image in enumerate(images):
        dy, dx = (int(v) for v in torch.randint(-1, 2, (2,)))
        out[i] = torch.roll(image, shifts=(dy, dx), dims=(-2, -1))
    return out


def _train(evaluate, eval_mode=True, after=None):
    """A small CNN on the digits; ``evaluate(held_out)`` gives the inputs of an evaluation
    every EVERY steps (after ``mon.step``, under no_grad, in eval mode unless
    ``eval_mode`` is False), accuracy only: no ``val_loss``."""
    torch.manual_seed(0)
    x, y = classification(images=True)
    x, y, held_out = x[:-300], y[:-300], x[-300:]
    model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.Flatten(),
                          nn.Linear(8 * 64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def evaluation(inputs):
        model.train(not eval_mode)
        with torch.no_grad():
            model(inputs)
        model.train()

    with nd.watch(model, optimizer) as mon:
        for step, (xb, yb) in enumerate(batches(x, y, STEPS), start=1):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            mon.step(loss)
            if evaluate is not None and step % EVERY == 0:
                evaluation(evaluate(held_out))
        if after is not None:
            evaluation(after(held_out))
    return mon


def test_randomly_cropped_evaluations_are_named():
    mon = _train(_shifted)
    assert CODE in _codes(mon)
    finding = next(f for f in mon.findings() if f.code == CODE)
    assert finding.evidence["counterpart_rank_sorted"] < 0.3


def test_evaluations_with_fresh_noise_are_named():
    assert CODE in _codes(_train(lambda h: h[:64] + 0.1 * torch.randn_like(h[:64])))


def test_untouched_evaluations_stay_silent():
    assert CODE not in _codes(_train(lambda h: h))


def test_fresh_random_batches_of_other_samples_stay_silent():
    assert CODE not in _codes(_train(lambda h: h[torch.randperm(len(h))[:64]]))


def test_training_mode_passes_are_not_taken():
    assert CODE not in _codes(_train(_shifted, eval_mode=False))


def test_a_single_evaluation_after_the_last_step_stays_silent():
    """One evaluation (taken at close) is no pair: nothing to compare."""
    assert CODE not in _codes(_train(None, after=_shifted))

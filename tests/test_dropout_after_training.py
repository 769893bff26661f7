"""VALIDATION_IN_TRAIN_MODE for predictions made after the loop with dropout still on (real-bug
batch 263, pytorch/pytorch#1207: a sine regressor with dropout 0.5 asked for its grid
predictions without ``model.eval()``). Before, the forwards after the last step were judged
only when a batch norm ran in training mode; a model with dropout alone was never named.

Healthy look-alikes stay silent: the same predictions after ``model.eval()``, Monte Carlo
dropout done right (one input passed many times with dropout on), and a loop that makes such
forwards between its steps too (its habit, not a slip after the loop). A run saved before
the two dropout counts were kept loads and reads as before."""
import json
import math

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from nndebug import rules, runfile  # noqa: E402
from nndebug.observed import Observed  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
CODE = "VALIDATION_IN_TRAIN_MODE"
STEPS = 40


def _train(after, between=None):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(1, 64), nn.ReLU(), nn.Dropout(0.5), nn.Linear(64, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    grid = torch.linspace(-math.pi, math.pi, 200).unsqueeze(1)
    with nd.watch(model, optimizer) as mon:
        for step in range(STEPS):
            x = torch.rand(64, 1) * 2 * math.pi - math.pi
            loss = nn.functional.mse_loss(model(x), torch.sin(x))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
            if between is not None and step % 10 == 9:
                between(model, grid)
        after(model, grid)
    return mon


def _predict(model, grid):
    with torch.no_grad():
        return model(grid)


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def test_predictions_with_dropout_still_on_are_named():
    found = [f for f in _train(_predict).findings() if f.code == CODE]
    assert found and found[0].severity == "warning"
    assert found[0].evidence["dropout_training"] == 1


def test_predictions_after_eval_are_silent():
    def predict(model, grid):
        model.eval()
        return _predict(model, grid)
    assert CODE not in _codes(_train(predict))


def test_monte_carlo_dropout_done_right_is_silent():
    def passes(model, grid):
        with torch.no_grad():
            return torch.stack([model(grid) for _ in range(20)]).std(0)
    assert CODE not in _codes(_train(passes))


def test_a_loop_that_predicts_so_between_its_steps_too_is_silent():
    assert CODE not in _codes(_train(_predict, between=_predict))


def test_a_row_saved_before_the_dropout_counts_reads_as_before():
    observed = Observed()
    observed.forwards_after_training.append((40, 1, 0, 1, False, 0, False, 0, 0))
    back = runfile.decode_observed(json.loads(json.dumps(runfile._encode_observed(observed))))
    assert back.forwards_after_training == [(40, 1, 0, 1, False, 0, False, 0, 0)]
    run = _train(_predict).run
    assert CODE in {f.code for f in rules.diagnose(run)}
    run.observed.forwards_after_training[:] = back.forwards_after_training
    assert CODE not in {f.code for f in rules.diagnose(run)}    # no counts: not judged

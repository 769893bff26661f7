"""Rules added for the ninth batch of reproduced public bug reports (training loops and
optimisation; ``benchmarks/real_bugs/``, rules/optimizer_setup.py): each with the bug
planted and its healthy twin."""
import pytest

torch = pytest.importorskip("torch")

from synthetic import blobs  # noqa: E402

import nndebug as nd  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def _train_clipped(max_norm, steps=120, optimizer_class=torch.optim.SGD, **optimizer_options):
    """Blobs classified by a small MLP, the gradients clipped to ``max_norm`` before every
    step (None: no clipping); the findings by code."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
    optimizer = optimizer_class(model.parameters(), **optimizer_options)
    loss_fn = torch.nn.CrossEntropyLoss()
    with nd.watch(model, optimizer) as mon:
        for xb, yb in blobs(steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            if max_norm is not None:
                torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
            optimizer.step()
            mon.step(loss)
    return {f.code: f for f in mon.findings()}


def _problems(found):
    return sorted(code for code, f in found.items() if f.severity in PROBLEMS)


# --- GRADIENTS_CLIPPED_AWAY ---------------------------------------------------------------

def test_clipping_to_a_norm_of_zero_is_named():
    found = _train_clipped(0.0, lr=0.05, momentum=0.9)
    assert "GRADIENTS_CLIPPED_AWAY" in _problems(found)
    finding = found["GRADIENTS_CLIPPED_AWAY"]
    assert finding.severity == "error"
    assert max(finding.evidence["held_over_delivered"]) < 1e-3


def test_clipping_to_a_tiny_norm_is_named():
    # clip_grad_norm_ adds 1e-6 to the norm, so a tiny maximum norm leaves a tiny fraction
    found = _train_clipped(1e-6, lr=0.05, momentum=0.9)
    assert "GRADIENTS_CLIPPED_AWAY" in _problems(found)


@pytest.mark.parametrize("max_norm", [None, 1.0, 0.1])
def test_healthy_clipping_stays_silent(max_norm):
    # the healthy twins: no clipping, the common norm of 1, and a clip that bites on most
    # steps (the gradients' norm is several times 0.1 early on) but leaves them usable
    found = _train_clipped(max_norm, lr=0.05, momentum=0.9)
    assert "GRADIENTS_CLIPPED_AWAY" not in found
    assert _problems(found) == []


def test_adam_with_clipped_but_learning_gradients_stays_silent():
    # Adam divides by the gradients' scale, so a small clip norm still trains: learning is
    # not poor and the rule, which explains poor learning, stays silent
    found = _train_clipped(1e-4, optimizer_class=torch.optim.Adam, lr=1e-2)
    assert "GRADIENTS_CLIPPED_AWAY" not in found


# --- LOSS_SCALED_FOR_BACKWARD ----------------------------------------------------------------

def _train_scaled(stepping, steps=60, loss_weight=1.0, reduction="mean", lr=0.05):
    """Blobs classified with SGD; backward on the loss scaled by a CPU GradScaler.
    ``stepping``: "optimizer" (optimizer.step(): the scaled gradients as they are),
    "scaler" (scaler.step: unscaled first, as meant) or None (no scaler at all)."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    scaler = torch.amp.GradScaler("cpu")
    loss_fn = torch.nn.CrossEntropyLoss(reduction=reduction)
    with nd.watch(model, optimizer) as mon:
        for xb, yb in blobs(steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb) * loss_weight
            if stepping is None:
                loss.backward()
                optimizer.step()
            else:
                scaler.scale(loss).backward()
                if stepping == "scaler":
                    scaler.step(optimizer)
                    scaler.update()
                else:
                    optimizer.step()
            mon.step(loss)
    return {f.code: f for f in mon.findings()}


def test_scaled_gradients_stepped_without_unscaling_are_named():
    found = _train_scaled("optimizer")
    assert "LOSS_SCALED_FOR_BACKWARD" in _problems(found)
    finding = found["LOSS_SCALED_FOR_BACKWARD"]
    assert finding.where == "2.bias"
    assert min(finding.evidence["over_bound"]) > 16


def test_a_grad_scaler_used_as_meant_stays_silent():
    # the delivered gradients are just as large, but scaler.step() unscales .grad first
    found = _train_scaled("scaler")
    assert "LOSS_SCALED_FOR_BACKWARD" not in found
    assert _problems(found) == []


@pytest.mark.parametrize("loss_weight, reduction, lr", [(4.0, "mean", 0.05),
                                                        (1.0, "sum", 0.002)])
def test_loss_weights_and_summed_losses_stay_silent(loss_weight, reduction, lr):
    # a loss weight of a few, or a loss summed over the batch (at most sqrt(2) x the batch
    # size on the bias), stay inside the bound's margin
    found = _train_scaled(None, loss_weight=loss_weight, reduction=reduction, lr=lr)
    assert "LOSS_SCALED_FOR_BACKWARD" not in found

"""Rules added for the thirteenth batch of reproduced public bug reports
(``benchmarks/real_bugs/``: rules/adam_betas.py, rules/rising_learning_rate.py,
rules/output_width.py): each with the bug planted and its healthy twins."""
import math

import pytest

torch = pytest.importorskip("torch")

from synthetic import blobs  # noqa: E402

import nndebug as nd  # noqa: E402
from nndebug.rules.rising_learning_rate import rising_stretch  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def _train(outputs=4, steps=120, optimizer_class=torch.optim.Adam, schedule=None,
           **optimizer_options):
    """Blobs (4 classes) classified by a small MLP with ``outputs`` scores; ``schedule``: a
    LambdaLR factor of the step, stepped after every optimizer step. The findings by code."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(),
                                torch.nn.Linear(32, outputs))
    optimizer = optimizer_class(model.parameters(), **optimizer_options)
    scheduler = None if schedule is None else \
        torch.optim.lr_scheduler.LambdaLR(optimizer, schedule)
    loss_fn = torch.nn.CrossEntropyLoss()
    with nd.watch(model, optimizer) as mon:
        for xb, yb in blobs(steps):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            if scheduler is not None:
                scheduler.step()
            mon.step(loss)
    return {f.code: f for f in mon.findings()}


def _problems(found):
    return sorted(code for code, f in found.items() if f.severity in PROBLEMS)


# --- ADAM_BETAS_INVERTED ------------------------------------------------------------------

def test_betas_written_as_one_minus_beta_are_named():
    found = _train(lr=1e-2, betas=(0.1, 0.001))
    assert "ADAM_BETAS_INVERTED" in _problems(found)
    assert found["ADAM_BETAS_INVERTED"].evidence["groups"][0]["betas"] == [0.1, 0.001]


@pytest.mark.parametrize("betas", [(0.9, 0.999), (0.5, 0.999), (0.0, 0.9), (0.9, 0.95)])
def test_published_betas_stay_silent(betas):
    # torch's default, the DCGAN and WGAN-GP settings, and the large-language-model one
    found = _train(lr=1e-2, betas=betas)
    assert "ADAM_BETAS_INVERTED" not in found


# --- LR_GROWS_DURING_TRAINING ------------------------------------------------------------

def test_a_step_decay_turned_upside_down_is_named():
    # gamma ** -(step // 40) with gamma = 0.1: ten times the rate at every milestone
    found = _train(optimizer_class=torch.optim.SGD, lr=1e-3,
                   schedule=lambda step: 0.1 ** -(step // 40))
    assert "LR_GROWS_DURING_TRAINING" in _problems(found)
    assert found["LR_GROWS_DURING_TRAINING"].evidence["growth"] >= 10


def test_a_warmup_longer_than_the_run_is_named():
    found = _train(lr=1e-3, schedule=lambda step: step / 1000)
    assert "LR_GROWS_DURING_TRAINING" in _problems(found)


def _warmup_then_cosine(step, warmup=10, total=120):
    if step < warmup:
        return (step + 1) / warmup
    return 0.5 * (1 + math.cos(math.pi * (step - warmup) / (total - warmup)))


@pytest.mark.parametrize("schedule", [
    None,                                             # constant
    lambda step: min(1.0, (step + 1) / 10),           # a short warm-up, then flat
    lambda step: min(1.0, (step + 1) / 100),          # a warm-up of most of the run that
                                                      # still reaches its peak (thinned
                                                      # records see only the rise)
    _warmup_then_cosine,                              # warm-up, then cosine decay
    lambda step: 0.5 ** (step // 30),                 # a step decay the right way up
])
def test_healthy_schedules_stay_silent(schedule):
    found = _train(lr=1e-2, schedule=schedule)
    assert "LR_GROWS_DURING_TRAINING" not in found


def test_warm_restarts_stay_silent():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0=25)
    loss_fn = torch.nn.CrossEntropyLoss()
    with nd.watch(model, optimizer) as mon:
        for xb, yb in blobs(120):
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            scheduler.step()
            mon.step(loss)
    assert "LR_GROWS_DURING_TRAINING" not in {f.code for f in mon.findings()}


def test_rising_stretch_reads_the_records():
    # thinned records, as the monitor keeps them
    ramp = [(s, 1e-6 * (s + 1)) for s in (0, 1, 2, 4, 8, 16, 32, 64, 128, 256)]
    assert rising_stretch(ramp) is not None
    falls_in_between = ramp[:-2] + [(128, 1e-3), (200, 1e-4), (256, 2e-3)]
    assert rising_stretch(falls_in_between) is None
    higher_before = [(0, 1.0), (64, 0.01), (128, 0.02), (256, 0.5)]
    assert rising_stretch(higher_before) is None
    assert rising_stretch([(0, 0.1)]) is None


# --- OUTPUT_WIDER_THAN_CLASSES -----------------------------------------------------------

def test_a_head_wider_than_the_classes_is_named():
    found = _train(outputs=32, lr=1e-2)
    assert "OUTPUT_WIDER_THAN_CLASSES" in _problems(found)
    evidence = found["OUTPUT_WIDER_THAN_CLASSES"].evidence
    assert evidence["output_columns"] == 32 and evidence["classes_named"] == 4


@pytest.mark.parametrize("outputs", [4, 6])
def test_a_head_the_size_of_the_classes_stays_silent(outputs):
    # the right size, and a few spare ids (COCO's 91 ids for 80 classes)
    found = _train(outputs=outputs, lr=1e-2)
    assert "OUTPUT_WIDER_THAN_CLASSES" not in found

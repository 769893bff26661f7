"""The zoo: every broken case yields its expected finding, every healthy run stays quiet."""
import inspect
import random

import numpy as np
import pytest

from nndebug import zoo

torch = pytest.importorskip("torch")

CASES = zoo.cases()
BROKEN = [c for c in CASES if not c.healthy]
HEALTHY = [c for c in CASES if c.healthy]


def problems(monitor):
    return [f for f in monitor.findings() if f.severity in ("warning", "error")]


def test_the_zoo_has_the_promised_cases():
    names = [c.name for c in CASES]
    assert len(names) == len(set(names))
    torch_broken = [c for c in BROKEN if c.framework == "torch"]
    minigrad_broken = [c for c in BROKEN if c.framework == "minigrad"]
    assert len(torch_broken) >= 22          # the lesson's networks and at least 15 more
    assert len(minigrad_broken) >= 8
    assert len(HEALTHY) >= 5 and {c.framework for c in HEALTHY} == {"torch", "minigrad"}
    for case in CASES:
        assert case.name.startswith(case.framework + "/")
        assert case.description and case.fix and case.steps > 0
        source = inspect.getsource(case.module)
        assert ("# BUG:" in source) == (not case.healthy), case.name


@pytest.mark.parametrize("case", BROKEN, ids=lambda c: c.name)
def test_each_broken_case_yields_its_expected_finding_cause_first(case):
    monitor = case.run()
    found = problems(monitor)
    codes = [f.code for f in found]
    assert case.expected in codes, (case.name, codes)
    expected = found[codes.index(case.expected)]
    # the expected finding comes first, or right after the cause that explains it
    assert codes[0] == case.expected or expected.evidence.get("likely_cause") == codes[0], codes
    assert monitor.closed


@pytest.mark.parametrize("case", HEALTHY, ids=lambda c: c.name)
def test_each_healthy_run_raises_no_warning_or_error(case):
    monitor = case.run()
    assert problems(monitor) == [], monitor.report()


SAMPLED = ["torch/missing-zero-grad", "torch/dead-relu-bias", "torch/dead-relu-lr",
           "torch/double-softmax", "torch/nan-inputs", "torch/eval-mode-dropout",
           "torch/shuffled-labels", "torch/vanishing-sigmoid", "torch/detached-graph",
           "torch/healthy-mlp", "torch/healthy-cnn", "minigrad/missing-zero-grad",
           "minigrad/double-softmax", "minigrad/healthy-mlp"]


@pytest.mark.parametrize("name", SAMPLED)
def test_diagnosis_holds_with_watchs_default_time_budgeted_sampling(name):
    case = zoo.get(name)
    monitor = case.run(overhead=0.05)
    codes = [f.code for f in problems(monitor)]
    assert (case.expected in codes) if case.expected else codes == [], codes


def test_running_a_case_leaves_the_callers_random_state_and_threads_alone():
    import minigrad as mg
    torch.manual_seed(123)
    np.random.seed(7)
    random.seed(3)
    mg.manual_seed(5)
    states = (torch.get_rng_state(), np.random.get_state()[1].copy(), random.getstate(),
              mg.get_rng_state())
    threads = torch.get_num_threads()
    zoo.get("torch/healthy-mlp").run(steps=5)
    zoo.get("minigrad/healthy-mlp").run(steps=5)
    assert torch.equal(states[0], torch.get_rng_state())
    assert np.array_equal(states[1], np.random.get_state()[1])
    assert states[2] == random.getstate()
    assert torch.get_num_threads() == threads
    again = mg.get_rng_state()
    assert str(again) == str(states[3])


def test_get_finds_cases_by_short_name_and_explains_ambiguity():
    assert zoo.get("healthy-cnn").name == "torch/healthy-cnn"
    with pytest.raises(KeyError, match="several"):
        zoo.get("missing-zero-grad")
    with pytest.raises(KeyError, match="nndebug zoo"):
        zoo.get("no-such-case")

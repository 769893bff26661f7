"""PyTorch's own OpInfo sample inputs, replayed on every op minigrad has (tests/opinfo_replay.py).

The samples are written by PyTorch's developers, not by us: 0-d and empty
tensors, negative dims, broadcasting, keyword options. Each op must run every
sample it can express without a crash, with torch's values, shapes, dtypes and
gradients; options minigrad does not have are declined with a clear error and
counted. One op is one test, so a failure names the op and the first samples.
"""
import inspect
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("expecttest")   # torch.testing._internal needs it (a dev dependency)

import minigrad as mg  # noqa: E402
import minigrad.nn.functional as F  # noqa: E402
from minigrad.ops import REGISTRY  # noqa: E402

from opinfo_replay import ADAPTERS, opinfo_by_name, replay_op  # noqa: E402

# minigrad functions that share a name with an OpInfo entry but cannot be compared
NOT_REPLAYED = {
    "empty": "torch leaves the memory uninitialised", "empty_like": "uninitialised memory",
    "rand_like": "random draws", "randint": "random draws", "randint_like": "random draws",
    "randn": "random draws", "randn_like": "random draws",
    "nn.functional.dropout": "random masks",
}


@pytest.fixture(scope="module")
def opinfos():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return opinfo_by_name()


@pytest.mark.parametrize("name", sorted(ADAPTERS))
def test_opinfo_samples_agree_with_torch(name, opinfos):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        counts, failures = replay_op(opinfos[name], ADAPTERS[name], name)
    shown = "; ".join(f"{outcome} (input {getattr(s.input, 'shape', s.input)}, args "
                      f"{[getattr(a, 'shape', a) for a in s.args]}, kwargs {s.kwargs})"
                      for outcome, s in failures[:3])
    assert not failures, f"{name}: {dict(counts)}: {shown}"
    assert counts["agree"] > 0, f"{name}: no sample could be compared: {dict(counts)}"


def _public_names():
    names = set()
    for namespace, prefix in ((mg.ops, ""), (mg, ""), (mg.Tensor, ""), (F, "nn.functional.")):
        for name, value in vars(namespace).items():
            if not name.startswith("_") and (inspect.isfunction(value) or callable(value)):
                names.add(prefix + name)
    return names


def test_every_minigrad_op_with_an_opinfo_is_replayed(opinfos):
    """A new minigrad op whose name torch's OpInfo database knows must join the replay."""
    known = {full.split(".")[0] if not full.startswith("nn.functional.") else
             ".".join(full.split(".")[:3]) for full in opinfos}
    replayed = {name.split(".")[0] if not name.startswith("nn.functional.") else
                ".".join(name.split(".")[:3]) for name in ADAPTERS}
    missing = sorted(n for n in _public_names() if n in known and n not in replayed
                     and n not in NOT_REPLAYED)
    assert not missing, f"minigrad ops with OpInfo samples that the replay skips: {missing}"


def test_the_replay_catches_a_wrong_backward_and_a_wrong_forward(opinfos):
    sin = REGISTRY["sin"]
    original = vars(sin)["backward"]
    sin.backward = staticmethod(lambda ctx, grad: (grad * np.sin(ctx.saved_tensors[0]),))
    try:
        counts, failures = replay_op(opinfos["sin"], ADAPTERS["sin"], "sin")
    finally:
        sin.backward = original
    assert failures and all("gradient" in outcome for outcome, _ in failures)
    counts, failures = replay_op(opinfos["cos"], ADAPTERS["sin"], "cos")   # sin in place of cos
    assert failures and failures[0][0] == "disagree: values"

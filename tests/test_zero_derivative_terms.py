"""LOSS_TERM_WITHOUT_GRADIENT for a term that keeps its graph: computed through sign, round,
floor, ceil or trunc, whose derivative is zero (``monitor/loss_terms.py``,
``zero_derivative_cut``; real-bug batch 346, DSH's quantisation penalty typed with sign()).

Planted: penalties through sign and round on the model's output are named, with the value the
term adds and the operation that cuts it. Healthy look-alikes stay silent: the same penalty
written with abs(), a straight-through estimator (the rounding detached), sign() used as a
factor of a live value, a rounded value added to a live one inside the term, a penalty with
weight zero."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import nndebug as nd  # noqa: E402
from benchmarks.bench_real_bugs import warnings_unprinted  # noqa: E402
from benchmarks.real_bugs._common import classification  # noqa: E402
from nndebug.monitor.loss_terms import zero_derivative_cut  # noqa: E402
from nndebug.observed import LossTerm, Observed  # noqa: E402
from nndebug.rules.loss_terms import penalty_without_gradient  # noqa: E402
from nndebug.runfile import _encode_observed, decode_observed  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
CODE = "LOSS_TERM_WITHOUT_GRADIENT"
STEPS = 60


def _train(penalty_of, steps=STEPS):
    """The digits MLP with a 16-unit tanh code trained on cross-entropy plus
    ``penalty_of(code)``; returns the monitor."""
    torch.manual_seed(0)
    body = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(),
                               torch.nn.Linear(64, 16), torch.nn.Tanh())
    head = torch.nn.Linear(16, 10)
    model = torch.nn.ModuleDict({"body": body, "head": head})
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, y = classification()
    rng = np.random.default_rng(0)
    with warnings_unprinted(), nd.watch(model, optimizer) as mon:
        for _ in range(steps):
            rows = torch.as_tensor(rng.choice(len(x), 64, replace=False))
            code = body(x[rows])
            loss = torch.nn.functional.cross_entropy(head(code), y[rows]) + penalty_of(code)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


PLANTED = {
    "sign": lambda u: 0.5 * (1 - u.sign()).abs().mean(),          # DSH, typed with sign
    "round": lambda u: 0.5 * (u.round() - 1).pow(2).mean(),
    "floor in a sum": lambda u: 0.2 * (u.floor().mean() + u.ceil().abs().mean()),
}
HEALTHY = {
    "abs": lambda u: 0.5 * (1 - u.abs()).abs().mean(),             # DSH as the paper has it
    "straight-through": lambda u: 0.5 * (u + (u.round() - u).detach()).abs().mean(),
    "sign times a live value": lambda u: 0.5 * (u.sign() * u).mean(),
    "round beside a live value": lambda u: 0.5 * (u.round() + u).pow(2).mean(),
    "weight zero": lambda u: 0.0 * u.sign().mean(),
}


@pytest.mark.parametrize("name", sorted(PLANTED))
def test_a_penalty_through_a_flat_operation_is_named(name):
    mon = _train(PLANTED[name])
    found = [f for f in mon.findings() if f.code == CODE]
    assert found and found[0].severity == "warning", name
    assert found[0].evidence["cut_by"].endswith("Backward0")
    terms = mon.run.observed.loss_terms
    assert terms and all(t.cut_by for t in terms)


def test_the_value_is_the_terms_value():
    """Measured under the constants mode, the term's value is what it adds to the loss."""
    mon = _train(PLANTED["sign"])
    values = [t.value for t in mon.run.observed.loss_terms]
    assert values and all(0.0 <= v <= 1.0 for v in values)     # 0.5 * mean of {0, 2}


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_healthy_look_alikes_stay_silent(name):
    mon = _train(HEALTHY[name])
    assert CODE not in {f.code for f in mon.findings() if f.severity in PROBLEMS}, name
    if name != "weight zero":       # that one is cut, and adds nothing: too small to matter
        assert not any(t.cut_by for t in mon.run.observed.loss_terms)


def test_the_walk_tells_a_cut_graph_from_a_live_one():
    weight = torch.nn.Parameter(torch.randn(3))
    assert zero_derivative_cut(weight.sign().sum().grad_fn) == "SignBackward0"
    assert zero_derivative_cut((weight.round() * 2).sum().grad_fn) == "RoundBackward0"
    assert zero_derivative_cut((weight.sign() * weight).sum().grad_fn) is None
    assert zero_derivative_cut((weight.floor() + weight.exp()).sum().grad_fn) is None


def test_a_cut_term_needs_one_sizable_step_a_constant_most_steps():
    """A penalty's share grows as the main loss falls: a cut term sizable on one of four
    steps is named; a constant addend with the same shares is not."""
    shares = [0.002, 0.004, 0.006, 0.05]
    cut = [LossTerm(step=i, value=0.1 + 0.01 * i, share=s, made_by="AddBackward0",
                    cut_by="SignBackward0") for i, s in enumerate(shares)]
    constant = [LossTerm(step=i, value=0.1 + 0.01 * i, share=s, made_by="AddBackward0")
                for i, s in enumerate(shares)]
    assert penalty_without_gradient(cut) is not None
    assert penalty_without_gradient(constant) is None
    tiny = [LossTerm(step=i, value=0.1 + 0.01 * i, share=0.001, made_by="AddBackward0",
                     cut_by="SignBackward0") for i in range(4)]
    assert penalty_without_gradient(tiny) is None


def test_the_new_field_survives_a_round_trip():
    observed = Observed()
    observed.loss_terms.append(LossTerm(step=3, value=0.25, share=0.1, made_by="AddBackward0",
                                        cut_by="SignBackward0"))
    assert decode_observed(_encode_observed(observed)).loss_terms == observed.loss_terms
    old_file = _encode_observed(observed)
    for row in old_file["loss_terms"]:
        del row["cut_by"]                       # a file written before the field was kept
    assert decode_observed(old_file).loss_terms[0].cut_by == ""

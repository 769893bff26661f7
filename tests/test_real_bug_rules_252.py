"""Real-bug batch 252 (beginner seq2seq tutorials): a decoder unrolled token by token that
ends in softmax and is trained with CrossEntropyLoss - the chatbot tutorial's decoder with
``CrossEntropyLoss(ignore_index=PAD)`` in place of its masked NLL, benchmarks/real_bugs/
chatbot_cross_entropy_on_softmax_decoder_output.py - is named DOUBLE_SOFTMAX (error). The
loop sums one cross-entropy call per target position, so the loss it reports lies far above
the band one call on probabilities can take; the calls themselves (every one given rows
that are non-negative and sum to 1) are the evidence (rules/setup.py). The planted case and
its healthy twin in torch and minigrad, and one call per step still judged by the band."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import chatbot_cross_entropy_on_softmax_decoder_output as case  # noqa: E402,E501

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
CODE = "DOUBLE_SOFTMAX"
STEPS = 60
POSITIONS, CLASSES, FEATURES, BATCH = 6, 5, 16, 32


def _problems(mon):
    return {f.code: f for f in mon.findings() if f.severity in PROBLEMS}


def _data(steps=STEPS, seed=0):
    """(x (B, 16), y (B, 6) class ids): each position's class a fixed linear read of x."""
    rng = np.random.default_rng(seed)
    w = np.random.default_rng(252).normal(size=(POSITIONS, FEATURES, CLASSES))
    for _ in range(steps):
        x = rng.normal(size=(BATCH, FEATURES)).astype(np.float32)
        y = np.einsum("bf,tfc->btc", x, w).argmax(-1).astype(np.int64)
        yield x, y


def test_the_benchmark_case_is_named_and_its_twin_is_silent():
    planted = _problems(case.run())
    assert planted[CODE].severity == "error"
    assert planted[CODE].evidence["calls"] >= 2
    assert _problems(case.run(fixed=True)) == {}


def _torch_run(softmax_output, per_position=True):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(FEATURES, 32), torch.nn.Tanh(),
                                torch.nn.Linear(32, POSITIONS * CLASSES))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    criterion = torch.nn.CrossEntropyLoss()
    with nd.watch(model, optimizer) as mon:
        for x, y in _data():
            xb, yb = torch.from_numpy(x), torch.from_numpy(y)
            scores = model(xb).view(BATCH, POSITIONS, CLASSES)
            if softmax_output:
                scores = torch.softmax(scores, dim=-1)
            if per_position:                  # one call per position, summed
                loss = sum(criterion(scores[:, t], yb[:, t]) for t in range(POSITIONS))
            else:
                loss = criterion(scores.reshape(-1, CLASSES), yb.reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_torch_softmax_decoder_summed_over_positions_is_named():
    found = _problems(_torch_run(softmax_output=True))
    assert found[CODE].severity == "error"
    assert CODE not in _problems(_torch_run(softmax_output=False))


def test_one_call_per_step_is_still_named():
    found = _problems(_torch_run(softmax_output=True, per_position=False))
    assert found[CODE].severity == "error"
    assert CODE not in _problems(_torch_run(softmax_output=False, per_position=False))


def test_nll_after_log_of_the_softmax_stays_silent():
    """The fix the tutorial's own loss makes: NLLLoss given log-probabilities."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(FEATURES, 32), torch.nn.Tanh(),
                                torch.nn.Linear(32, POSITIONS * CLASSES))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    criterion = torch.nn.NLLLoss()
    with nd.watch(model, optimizer) as mon:
        for x, y in _data():
            xb, yb = torch.from_numpy(x), torch.from_numpy(y)
            probs = torch.softmax(model(xb).view(BATCH, POSITIONS, CLASSES), dim=-1)
            loss = sum(criterion(torch.log(probs[:, t]), yb[:, t]) for t in range(POSITIONS))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert CODE not in _problems(mon)


def test_minigrad_softmax_decoder_summed_over_positions_is_named():
    mg = pytest.importorskip("minigrad")
    import minigrad.nn as mnn
    import minigrad.nn.functional as MF
    import minigrad.optim as moptim
    found = {}
    for softmax_output in (True, False):
        mg.manual_seed(0)
        model = mnn.Sequential(mnn.Linear(FEATURES, 32), mnn.Tanh(),
                               mnn.Linear(32, POSITIONS * CLASSES))
        optimizer = moptim.Adam(model.parameters(), lr=1e-2)
        criterion = mnn.CrossEntropyLoss()
        with nd.watch(model, optimizer) as mon:
            for x, y in _data():
                scores = model(mg.tensor(x)).reshape(BATCH, POSITIONS, CLASSES)
                if softmax_output:
                    scores = MF.softmax(scores, dim=-1)
                loss = None
                for t in range(POSITIONS):
                    term = criterion(scores[:, t], mg.tensor(y[:, t]))
                    loss = term if loss is None else loss + term
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                mon.step(loss)
        found[softmax_output] = _problems(mon)
    assert found[True][CODE].severity == "error"
    assert CODE not in found[False]

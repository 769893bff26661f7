"""The rule added for batch 183 of reproduced public bug reports (federated learning
simulated in one process; ``benchmarks/real_bugs/``): AVERAGE_WEIGHTS_NOT_NORMALISED
(rules/aggregate_scale.py), with the bug planted - a FedAvg server whose aggregation
coefficients add up to 2 or to 0.6 - and its healthy look-alikes: the normalised average,
one reload of a differently sized state, and an average of clients whose weights grow by
their own training."""
import copy
from types import SimpleNamespace

import pytest

torch = pytest.importorskip("torch")

from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from nndebug.rules.aggregate_scale import (  # noqa: E402
    average_weights_not_normalised, scaled_writes)

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
CODE = "AVERAGE_WEIGHTS_NOT_NORMALISED"


def _problems(mon):
    return {f.code: f for f in mon.findings() if f.severity in PROBLEMS}


def _clients(k=4, n=96, seed=0):
    """``k`` clients of a 3-class problem in 8 dimensions, each holding mostly one class
    (a non-IID split, as in the cases)."""
    generator = torch.Generator().manual_seed(seed)
    centres = torch.randn(3, 8, generator=generator) * 2
    parts = []
    for c in range(k):
        y = torch.where(torch.rand(n, generator=generator) < 0.7,
                        torch.full((n,), c % 3), torch.randint(0, 3, (n,), generator=generator))
        x = centres[y] + torch.randn(n, 8, generator=generator)
        parts.append((x, y))
    return parts


def _net():
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))


def _federated(total=1.0, rounds=12, local=8, lr=0.05, reload_once=None):
    """FedAvg over ``_clients``: every round each client loads the global weights, takes
    ``local`` SGD steps, and the server sums the clients' state_dicts with coefficients
    ``total / clients`` (1.0: the average). ``reload_once``: a round after which the loop
    loads a state 3x the size of the global one, once (a checkpoint of another run)."""
    torch.manual_seed(0)
    parts = _clients()
    global_model, client = _net(), _net()
    optimizer = torch.optim.SGD(client.parameters(), lr=lr)
    generator = torch.Generator().manual_seed(1)
    with nd.watch(client, optimizer) as mon:
        for r in range(rounds):
            states = []
            for x, y in parts:
                client.load_state_dict(global_model.state_dict())
                for _ in range(local):
                    index = torch.randint(0, len(x), (32,), generator=generator)
                    optimizer.zero_grad()
                    loss = nn.functional.cross_entropy(client(x[index]), y[index])
                    loss.backward()
                    optimizer.step()
                    mon.step(loss)
                states.append(copy.deepcopy(client.state_dict()))
            share = total / len(states)
            merged = {key: sum(s[key] * share for s in states) for key in states[0]}
            if reload_once is not None and r == reload_once:
                merged = {key: value * 3.0 for key, value in merged.items()}
            global_model.load_state_dict(merged)
    return mon


def test_coefficients_adding_up_to_two_are_named():
    found = _problems(_federated(total=2.0))
    assert CODE in found
    assert found[CODE].evidence["factor"] > 1.5
    assert "grew" in found[CODE].message


def test_coefficients_adding_up_to_0_6_are_named():
    found = _problems(_federated(total=0.6))
    assert CODE in found
    assert found[CODE].evidence["factor"] < 1 / 1.4
    assert "shrank" in found[CODE].message


def test_normalised_average_is_silent():
    assert CODE not in {f.code for f in _federated(total=1.0).findings()}


def test_one_reload_of_a_larger_state_is_silent():
    assert CODE not in {f.code for f in _federated(total=1.0, reload_once=5).findings()}


def _rule_on(rows):
    run = SimpleNamespace(observed=SimpleNamespace(rewritten_weights=rows))
    return average_weights_not_normalised(SimpleNamespace(run=run))


def test_clients_growing_their_own_weights_are_not_named():
    # written sizes growing 2x per distinct write, each write pulling the weights back
    # toward where the local run began (an average of clients that diverged by their own
    # training, as batch 117's SCAFFOLD case does): no rescaled aggregate
    pulled_back = [(10 * i + 9, 50.0, 0.01, 2.0 ** i) for i in range(8)]
    assert len(scaled_writes(pulled_back)) == 8        # the sizes alone would qualify
    assert _rule_on(pulled_back) is None
    carried_away = [(10 * i + 9, 50.0, 6.0, 2.0 ** i) for i in range(8)]
    assert _rule_on(carried_away).code == CODE


def test_scaled_writes_needs_a_run_in_one_direction():
    growing = [(10 * i + 9, 20.0, 5.0, 2.0 ** i) for i in range(5)]
    assert [s for s, _, _ in scaled_writes(growing)] == [9, 19, 29, 39, 49]
    same_state_again = [(9, 20.0, 5.0, 1.0), (19, 10.0, 0.0, 1.0), (29, 20.0, 5.0, 2.0),
                        (39, 10.0, 0.0, 2.0), (49, 20.0, 5.0, 4.0)]
    assert len(scaled_writes(same_state_again)) == 0      # two changes only
    zigzag = [(10 * i + 9, 20.0, 5.0, 2.0 if i % 2 else 1.0) for i in range(8)]
    assert scaled_writes(zigzag) == []
    assert scaled_writes([]) == [] and scaled_writes([(9, 20.0, 5.0, 0.0)]) == []

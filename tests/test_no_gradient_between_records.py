"""NO_GRADIENT and the steps no judged record saw (rules/setup.py, _grew_between_records):
detailed records are sparse (steps 0, 1, 2, 4, ... 256), so a head a continual learner trains
only on its last task got gradients on no judged record and was told NO_GRADIENT on a
healthy run (real-bug batch 325). Its weights grew since the first record, which watch now
reads when findings are asked (run.observed.norms_at_findings). A head cut off by a zero
gate is still named, also under weight decay, which moves it but only ever shrinks it."""
import pytest

torch = pytest.importorskip("torch")

import torch.nn.functional as F  # noqa: E402

import nndebug as nd  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


class Heads(torch.nn.Module):
    def __init__(self, count):
        super().__init__()
        self.body = torch.nn.Sequential(torch.nn.Linear(10, 32), torch.nn.ReLU())
        self.heads = torch.nn.ModuleList([torch.nn.Linear(32, 2) for _ in range(count)])

    def forward(self, x, task, gate=1.0):
        return self.heads[task](self.body(x)) * gate


def train(late_task_starts=320, steps=400, gate=1.0, weight_decay=0.0, heads=2):
    torch.manual_seed(0)
    x = torch.randn(1024, 10)
    y = (x[:, 0] > 0).long()
    model = Heads(heads)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, weight_decay=weight_decay)
    with nd.watch(model, optimizer) as mon:
        for step in range(steps):
            rows = torch.randint(0, 1024, (32,))
            task = int(step >= late_task_starts)
            loss = F.cross_entropy(model(x[rows], task, gate), y[rows])
            optimizer.zero_grad(set_to_none=False)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def no_gradient(mon):
    return [f for f in mon.findings() if f.code == "NO_GRADIENT"]


def test_a_head_trained_after_the_last_judged_record_is_not_named():
    mon = train()
    assert not no_gradient(mon), mon.findings()
    assert len(mon.run.observed.norms_at_findings) == len(mon.run.params)


steps_never_reached = 10_000


@pytest.mark.parametrize("weight_decay", [0.0, 0.01])
def test_a_head_behind_a_zero_gate_is_still_named(weight_decay):
    mon = train(late_task_starts=steps_never_reached, gate=0.0, weight_decay=weight_decay,
                heads=1)
    found = no_gradient(mon)
    assert found and "heads.0" in found[0].where, mon.findings()


class BiasNeverAdded(torch.nn.Module):
    """A hand-written layer that declares a bias and forgets to add it."""

    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(2, 10) * 0.3)
        self.bias = torch.nn.Parameter(torch.full((2,), 0.1))

    def forward(self, x):
        return x @ self.weight.T


def test_a_bias_the_forward_never_adds_is_named_beside_its_trained_weight():
    torch.manual_seed(0)
    x = torch.randn(512, 10)
    y = (x[:, 0] > 0).long()
    model = BiasNeverAdded()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with nd.watch(model, optimizer) as mon:
        for _ in range(200):
            rows = torch.randint(0, 512, (32,))
            loss = F.cross_entropy(model(x[rows]), y[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    found = no_gradient(mon)
    assert found and "bias" in str(found[0].evidence["parameters"]), mon.findings()

"""Real-bug batch 269 (beginner multi-output regression and target scaling): a two-output
model whose forward calls ONE output layer for both outputs (``x1 = self.dense2(x); x2 =
self.dense2(x)``), each trained toward its own target, is named MODULE_REPEATED_IN_CONTAINER
(one module object where two were written), read from the loss's graph on the first steps.
The planted case is the benchmark's; stay silent of it: two heads, one wide layer sliced
into the outputs, one output read by two terms (a student against labels and a teacher),
one encoder called on two inputs (a siamese pair), and a model calling its layer twice but
training one term. The rule's own reading is tested on hand-made rows. Torch only: the
pairs come from torch's autograd graph (minigrad's container repetition keeps its own
tests)."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import two_outputs_computed_by_one_shared_output_layer as shared  # noqa: E402,E501
from nndebug.observed import Observed  # noqa: E402
from nndebug.rules.repeated_modules import module_repeated_in_container  # noqa: E402
from nndebug.runfile import ROW_READERS  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
CODE = "MODULE_REPEATED_IN_CONTAINER"


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


class Heads(nn.Module):
    """A shared hidden layer and two outputs: ``wiring`` says how they are made."""

    def __init__(self, wiring):
        super().__init__()
        self.wiring = wiring
        self.hidden = nn.Linear(6, 16)
        self.a = nn.Linear(16, 1) if wiring != "wide" else nn.Linear(16, 2)
        if wiring == "two_heads":
            self.b = nn.Linear(16, 1)

    def forward(self, x):
        h = torch.relu(self.hidden(x))
        if self.wiring == "wide":
            out = self.a(h)
            return out[:, 0], out[:, 1]
        if self.wiring == "two_heads":
            return self.a(h).squeeze(1), self.b(h).squeeze(1)
        return self.a(h).squeeze(1), self.a(h).squeeze(1)       # "shared" and "one_term"


def _train(wiring, steps=8, terms=2, loss=nn.functional.mse_loss):
    torch.manual_seed(0)
    x = torch.randn(256, 6)
    y = torch.stack([x[:, 0] + x[:, 1], torch.tanh(x[:, 2]) - x[:, 3]], dim=1)
    model = Heads(wiring)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for step in range(steps):
            index = torch.arange(step * 32, step * 32 + 32) % 256
            first, second = model(x[index])
            total = loss(first, y[index, 0])
            if terms == 2:
                total = total + loss(second, y[index, 1])
            optimizer.zero_grad()
            total.backward()
            optimizer.step()
            mon.step(total)
    return mon


def test_planted_case_is_named():
    mon = shared.run(steps=30)
    assert CODE in _problems(mon)
    finding = next(f for f in mon.findings() if f.code == CODE)
    assert finding.where == "loss" and finding.evidence["pairs"] == [
        ["mse_loss", "mse_loss", "AddmmBackward0"]]


def test_fixed_twin_is_silent():
    assert CODE not in _problems(shared.run(fixed=True, steps=30))


@pytest.mark.parametrize("loss", [nn.functional.mse_loss, nn.functional.l1_loss,
                                  nn.functional.smooth_l1_loss])
def test_one_layer_called_for_two_targets_is_named(loss):
    assert CODE in _problems(_train("shared", loss=loss))


@pytest.mark.parametrize("wiring", ["two_heads", "wide"])
def test_two_real_outputs_are_silent(wiring):
    assert CODE not in _problems(_train(wiring))


def test_one_term_is_silent():
    """The layer called twice but only the first output trained: nothing pulls it two ways."""
    assert CODE not in _problems(_train("shared", terms=1))


def test_one_output_read_by_two_terms_is_silent():
    """A student's output against the labels and against a teacher's: one edge, by design."""
    torch.manual_seed(0)
    x = torch.randn(128, 6)
    y = x[:, :1] * 2
    student, teacher = nn.Linear(6, 1), nn.Linear(6, 1)
    optimizer = torch.optim.SGD(student.parameters(), lr=0.05)
    with nd.watch(student, optimizer) as mon:
        for step in range(8):
            batch = x[step * 16:(step + 1) * 16]
            out = student(batch)
            with torch.no_grad():
                soft = teacher(batch)
            loss = nn.functional.mse_loss(out, y[step * 16:(step + 1) * 16]) + \
                0.5 * nn.functional.mse_loss(out, soft)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert CODE not in _problems(mon)


def test_siamese_pair_is_silent():
    """One encoder called on two inputs, each output regressed: other input edges."""
    torch.manual_seed(0)
    left, right = torch.randn(128, 6), torch.randn(128, 6)
    encoder = nn.Linear(6, 1)
    optimizer = torch.optim.SGD(encoder.parameters(), lr=0.05)
    with nd.watch(encoder, optimizer) as mon:
        for step in range(8):
            rows = slice(step * 16, (step + 1) * 16)
            loss = nn.functional.mse_loss(encoder(left[rows]), left[rows, :1]) + \
                nn.functional.mse_loss(encoder(right[rows]), right[rows, 1:2])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert CODE not in _problems(mon)


class _Ctx:
    """The least of a rule's context: the run's observations."""

    def __init__(self, rows):
        observed = Observed()
        observed.repeated_output_calls.extend(rows)
        self.run = type("Run", (), {"observed": observed})()


def _named(rows):
    return module_repeated_in_container(_Ctx(rows))


def test_rule_reads_the_rows():
    """Named from two measured steps with a pair; one odd step is not the model's wiring."""
    pair = ("mse_loss", "mse_loss", "AddmmBackward0")
    finding = _named([(0, [pair]), (1, [pair])])
    assert finding.code == CODE and finding.evidence["steps"] == [0, 1]
    assert _named([(0, [pair])]) is None
    assert _named([]) is None


def test_rows_survive_the_run_file():
    row = (3, [("mse_loss", "l1_loss", "AddmmBackward0")])
    assert ROW_READERS["repeated_output_calls"]([3, [["mse_loss", "l1_loss",
                                                      "AddmmBackward0"]]]) == row

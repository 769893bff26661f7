"""OUTPUT_UNITS_WITHOUT_GRADIENT (real-bug batch 131): a model that cuts one layer's output
into several outputs and leaves a column unread - end logits taken from the start column,
a log-variance never put in the loss - trains only some rows of that layer. Named; the
healthy twins, and a class-incremental learner whose loss reads only the new classes'
columns of its single output, stay silent."""
import pytest

torch = pytest.importorskip("torch")

import nndebug as nd  # noqa: E402
from nndebug.rules.output_units import MIN_HEAD_RECORDS  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
F = torch.nn.functional


class Spans(torch.nn.Module):
    """Start and end scores per position from one (B, T, 2) head."""

    def __init__(self, end_column):
        super().__init__()
        self.body = torch.nn.Linear(8, 16)
        self.head = torch.nn.Linear(16, 2)
        self.end_column = end_column

    def forward(self, x):
        logits = self.head(torch.relu(self.body(x)))
        return logits[..., 0], logits[..., self.end_column]


def span_data(n=256, length=12, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, length, 8, generator=g)
    starts = x[..., 0].argmax(1)
    ends = x[..., 1].argmax(1)
    return x, starts, ends


def train_spans(end_column, steps=60):
    torch.manual_seed(0)
    x, starts, ends = span_data()
    model = Spans(end_column)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for step in range(steps):
            rows = torch.randint(0, len(x), (32,))
            start, end = model(x[rows])
            loss = F.cross_entropy(start, starts[rows]) + F.cross_entropy(end, ends[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def found(mon):
    return [f for f in mon.findings() if f.code == "OUTPUT_UNITS_WITHOUT_GRADIENT"]


def test_end_logits_read_from_the_start_column_are_named():
    mon = train_spans(end_column=0)
    hits = found(mon)
    assert hits and hits[0].severity == "warning", mon.findings()
    assert hits[0].evidence["rows_without_gradient"] == [1]
    assert hits[0].evidence["records"] >= MIN_HEAD_RECORDS
    assert hits[0].where == "head"


def test_both_columns_read_stay_silent():
    mon = train_spans(end_column=1)
    assert not found(mon)
    rows = mon.run.observed.head_rows
    assert rows and all(zero == [] and outputs == 2 for _, _, _, zero, outputs in rows)


class Gaussian(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Sequential(torch.nn.Linear(4, 32), torch.nn.Tanh())
        self.out = torch.nn.Linear(32, 2)

    def forward(self, x):
        mean, log_var = self.out(self.body(x)).chunk(2, dim=-1)
        return mean, log_var


@pytest.mark.parametrize("uses_variance", [False, True])
def test_a_log_variance_never_in_the_loss_is_named(uses_variance):
    torch.manual_seed(0)
    x = torch.randn(256, 4)
    y = x[:, :1] + 0.3 * torch.randn(256, 1)
    model = Gaussian()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for step in range(40):
            mean, log_var = model(x[:64])
            if uses_variance:
                loss = (0.5 * (y[:64] - mean) ** 2 / log_var.exp() + 0.5 * log_var).mean()
            else:
                loss = F.mse_loss(mean, y[:64])       # the variance head is never trained
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert bool(found(mon)) == (not uses_variance), mon.findings()


def test_a_loss_reading_some_columns_of_a_single_output_is_left_alone():
    """A class-incremental step: the loss reads only the new classes' logits of the one
    head; the old classes' rows get no gradient, on purpose."""
    torch.manual_seed(0)
    x = torch.randn(256, 8)
    y = x[:, :5].argmax(1)
    model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with nd.watch(model, optimizer) as mon:
        for step in range(40):
            loss = F.cross_entropy(model(x[:64])[:, 5:], y[:64])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    rows = mon.run.observed.head_rows
    assert rows and rows[0][3] == [0, 1, 2, 3, 4] and rows[0][4] == 1
    assert not found(mon)

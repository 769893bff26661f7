"""TARGETS_UNSCALED for a squared error in raw units summed AFTER a classification loss
(real-bug batch 281: ``cross_entropy(digit) + mse_loss(ink, raw_ink)`` on a shared encoder,
the ink in the hundreds). Only the step's first loss call is kept as ``loss_calls``; the
later squared errors leave the scale of what they compare in ``run.observed.summed_errors``
(``monitor/loss_capture.py``), and ``rules/target_scale.py`` reads them when the first loss
is of order one. Silent on standardised targets, on an error weighted down in the graph,
and on a regression-only run (the first call's own reading judges that one)."""
import numpy as np
import pytest

import nndebug as nd

torch = pytest.importorskip("torch")
nn = torch.nn
F = nn.functional

pytestmark = pytest.mark.usefixtures("one_torch_thread")

CODE = "TARGETS_UNSCALED"


def data():
    rng = np.random.default_rng(0)
    centres = rng.normal(size=(10, 32)) * 2
    labels = rng.integers(0, 10, 1200)
    x = centres[labels] + rng.normal(size=(1200, 32))
    amount = 300 + 40 * np.abs(x).sum(axis=1) / 32           # a raw-unit quantity, ~330
    return (torch.tensor(x, dtype=torch.float32), torch.tensor(labels),
            torch.tensor(amount, dtype=torch.float32))


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(32, 64), nn.ReLU())
        self.classes = nn.Linear(64, 10)
        self.amount = nn.Linear(64, 1)

    def forward(self, x):
        h = self.encoder(x)
        return self.classes(h), self.amount(h).squeeze(1)


def train(scaled=False, weight=None, classify=True, steps=120):
    torch.manual_seed(0)
    x, y, amount = data()
    if scaled:
        amount = (amount - amount.mean()) / amount.std()
    model = TwoHeads()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    with nd.watch(model, opt) as mon:
        for _ in range(steps):
            rows = torch.randint(0, len(x), (64,))
            logits, guess = model(x[rows])
            if classify:       # the classification loss is the step's first loss call
                loss = F.cross_entropy(logits, y[rows])
                error = F.mse_loss(guess, amount[rows])
                loss = loss + (error if weight is None else weight * error)
            else:
                loss = F.mse_loss(guess, amount[rows])
            opt.zero_grad()
            loss.backward()
            opt.step()
            mon.step(loss)
    return mon


def named(mon):
    return [f for f in mon.findings() if f.code == CODE]


def test_a_raw_unit_error_summed_after_cross_entropy_is_named():
    mon = train()
    found = named(mon)
    assert found and found[0].severity == "warning", mon.report()
    assert found[0].evidence["loss"] == "mse_loss summed after cross_entropy"
    assert found[0].evidence["target_magnitude"] > 300
    assert "other head starves" in found[0].message


def test_standardised_targets_are_silent():
    mon = train(scaled=True)
    assert mon.run.observed.summed_errors, "the later squared error is read"
    assert not named(mon)


def test_an_error_weighted_down_in_the_graph_is_silent():
    # 1e-4 x a squared error of ~330 units: sqrt(1e-4) x 330 = 3.3, well within unit scale
    assert not named(train(weight=1e-4))


def test_the_step_first_call_alone_is_judged_by_its_own_reading():
    mon = train(classify=False)
    assert mon.run.observed.summed_errors == []        # the error IS the first call
    assert named(mon)                                  # and the first call's reading names it


def test_the_rows_survive_a_saved_run(tmp_path):
    mon = train(steps=12)
    path = tmp_path / "run.json"
    mon.save(str(path))
    rows = nd.load_run(str(path)).run.observed.summed_errors
    assert rows and rows == mon.run.observed.summed_errors

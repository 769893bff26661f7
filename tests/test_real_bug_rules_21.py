"""Batch 21's rules: where a run's first NaN/Inf was born (NAN_BORN_IN_FORWARD,
NAN_BORN_IN_BACKWARD; ``nndebug/rules/nonfinite_origins.py``, observed by
``nndebug/monitor/nonfinite_origins.py``).

Each planted run is a small MLP whose loss or forward holds one of the reports' traps; its
healthy twin makes the same computation safe, and other healthy setups that put -inf in a
forward on purpose (a causal mask), or blow up for another reason (a learning rate far too
high: the Inf comes out of a Linear layer, not out of a risky operation), name no origin.
"""
import pytest

torch = pytest.importorskip("torch")

import nndebug as nd  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
ORIGINS = ("NAN_BORN_IN_FORWARD", "NAN_BORN_IN_BACKWARD")


class Pooled(torch.nn.Module):
    """Attention over 4 tokens of 4 features, then a classifier; ``mask``: which keys are
    masked with -inf (None: none); ``entropy``: an entropy bonus, where-guarded or safe."""

    def __init__(self, mask=None, entropy=None):
        super().__init__()
        self.embed, self.score, self.head = (torch.nn.Linear(4, 8), torch.nn.Linear(8, 1),
                                             torch.nn.Linear(8, 3))
        self.mask, self.entropy, self.bonus = mask, entropy, None

    def forward(self, x):
        tokens = torch.tanh(self.embed(x.view(-1, 4, 4)))
        scores = self.score(tokens).squeeze(-1)
        if self.mask is not None:
            scores = scores.masked_fill(self.mask, float("-inf"))
        p = scores.softmax(-1)
        if self.entropy == "where":
            self.bonus = -(p * torch.where(p > 0, p.log(), torch.zeros_like(p))).sum(-1).mean()
        elif self.entropy == "safe":
            self.bonus = -(p * torch.where(p > 0, p, torch.ones_like(p)).log()).sum(-1).mean()
        return self.head((p.unsqueeze(-1) * tokens).sum(1))


def _train(model, loss_fn, steps=6, lr=1e-2, scale=1.0):
    torch.manual_seed(0)
    x, y = torch.randn(64, 16) * scale, torch.randint(0, 3, (64,))
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    with nd.watch(model, optimizer) as mon:
        for _ in range(steps):
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def _mlp():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))


def _distance_loss(eps):
    """Cross-entropy plus a margin on each output's distance to itself shifted by a
    permutation with fixed points: identical pairs have distance exactly 0."""
    pairs = torch.tensor([0, 1] + list(range(63, 1, -1)))

    def loss(out, y):
        d = (out - out[pairs]).pow(2).sum(1)
        return torch.nn.functional.cross_entropy(out, y) + \
            torch.relu(1.0 - (d + eps).sqrt()).mean()
    return loss


def _count_loss(clamped):
    """Cross-entropy summed and divided by the count of a class no sample has (0)."""
    def loss(out, y):
        count = (y == 7).sum()
        count = count.clamp(min=1) if clamped else count
        return torch.nn.functional.cross_entropy(out, y, reduction="sum") / count
    return loss


def _ce(out, y):
    return torch.nn.functional.cross_entropy(out, y)


def _with_bonus(model):
    return lambda out, y: _ce(out, y) - 0.01 * model.bonus


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def _quiet(mon):
    """No origin named and no NaN symptom (the toy runs may get other rules' warnings on
    their fixed batch, BATCH_MIXING; the real cases' twins are checked whole in
    tests/test_real_bugs.py)."""
    return _origin(mon) is None and not _codes(mon) & {"NAN_LOSS", "NAN_GRADIENTS"}


def _origin(mon):
    return next((f for f in mon.findings() if f.code in ORIGINS), None)


FULLY_MASKED = torch.tensor([[True] * 4] + [[False, False, True, True]] * 63)
PARTLY_MASKED = torch.tensor([[False, True, True, True]] + [[False, False, True, True]] * 63)


def test_sqrt_at_zero_distance_is_named_in_backward():
    found = _origin(_train(_mlp(), _distance_loss(0.0)))
    assert found is not None and found.code == "NAN_BORN_IN_BACKWARD"
    assert found.evidence["operation"] == "sqrt" and found.where == "loss"
    assert found.evidence["forward_output_nonfinite"] is False
    assert "infinite at 0" in found.message


def test_sqrt_with_eps_is_silent():
    assert _quiet(_train(_mlp(), _distance_loss(1e-9)))


def test_division_by_a_zero_count_is_named_in_forward():
    found = _origin(_train(_mlp(), _count_loss(clamped=False)))
    assert found is not None and found.code == "NAN_BORN_IN_FORWARD"
    assert found.evidence["operation"] in ("div", "__truediv__") and found.step == 0
    assert "division by zero" in found.message


def test_division_by_a_clamped_count_is_silent():
    assert _quiet(_train(_mlp(), _count_loss(clamped=True)))


def test_where_guarded_log_is_named_as_hidden():
    model = Pooled(mask=PARTLY_MASKED, entropy="where")
    found = _origin(_train(model, _with_bonus(model)))
    assert found is not None and found.code == "NAN_BORN_IN_BACKWARD"
    assert found.evidence["operation"] == "log" and found.evidence["forward_output_nonfinite"]
    assert "torch.where" in found.message


def test_safe_log_inside_the_where_is_silent():
    model = Pooled(mask=PARTLY_MASKED, entropy="safe")
    assert _quiet(_train(model, _with_bonus(model)))


def test_fully_masked_row_is_named_in_the_softmax():
    found = _origin(_train(Pooled(mask=FULLY_MASKED), _ce))
    assert found is not None and found.code == "NAN_BORN_IN_FORWARD"
    assert found.evidence["operation"] == "softmax" and found.step == 0
    assert "-inf" in found.message


def test_partly_masked_rows_are_silent():
    """-inf in the forward on purpose (a mask): the softmax's output is finite."""
    assert _quiet(_train(Pooled(mask=PARTLY_MASKED), _ce))


def _log_softmax_loss(out, y):
    return torch.nn.functional.nll_loss(torch.log_softmax(out, -1), y)


def test_a_learning_rate_blow_up_names_no_origin():
    """The Inf comes out of a Linear layer (not watched as risky) and reaches log_softmax as
    +inf: an overflow made upstream is no birth there, nor is the NaN gradient of the steps
    after, whose forward was NaN already."""
    mon = _train(_mlp(), _log_softmax_loss, steps=30, lr=1e2, scale=10.0)
    assert {"NAN_LOSS", "NAN_GRADIENTS"} <= _codes(mon)
    assert _origin(mon) is None and not mon.run.observed.nonfinite_births


def test_a_birth_on_a_step_that_is_not_judged_is_not_read():
    """Births on extra records (the clock's) do not decide a verdict."""
    mon = _train(_mlp(), _count_loss(clamped=False))
    for record in mon.run.records:
        record.judged = False
    mon._findings_cache = None
    assert _origin(mon) is None


class _SoftmaxInside(torch.nn.Module):
    """Logits and their softmax, side by side: the softmax is inside the forward (read from
    the graph, where only its result is saved)."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.first, self.second = torch.nn.Linear(16, 16), torch.nn.Linear(16, 3)

    def forward(self, x):
        logits = self.second(torch.relu(self.first(x)))
        return torch.cat([logits, torch.softmax(logits, -1)], -1)


def _regression_to_ten(out, y):
    return torch.nn.functional.mse_loss(out, torch.nn.functional.one_hot(y, 6).float() * 10)


def test_a_blow_up_inside_the_model_names_no_origin():
    """A learning rate that makes the logits grow until the softmax inside the model gets
    +inf: the loss grew a thousandfold first, and the NaN is the blow-up's (LR_TOO_HIGH's),
    not the softmax's (whose saved result alone cannot show that its input was +inf)."""
    mon = _train(_SoftmaxInside(), _regression_to_ten, steps=20, lr=0.3, scale=10.0)
    assert {"NAN_LOSS", "LR_TOO_HIGH"} <= _codes(mon)
    assert mon.run.observed.nonfinite_births         # the softmax's NaN was seen ...
    assert _origin(mon) is None                      # ... and not named

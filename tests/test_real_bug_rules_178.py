"""LOSS_BROADCAST_OVER_BATCH beside a Cox partial likelihood (real-bug batch 178). The healthy
twin of the PathomicFusion case builds its risk sets as ``exp(theta)[None, :] * at_risk``,
a (1, N) row times an (N, N) mask with no gradient, summed over one axis: a table made on
purpose. It was read as a broadcast error term (a false alarm as it came). A table summed
over one of its batch axes, a value per sample kept, is now meant; the case's bug (N,)
terms times an (N, 1) event column, reduced by mean(), is still named, and so is a table
summed over a third axis first (quantile heads, followed as before)."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import cox_event_column_broadcast_against_risk_terms as cox  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
CODE = "LOSS_BROADCAST_OVER_BATCH"


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def test_the_cox_case_is_named_and_its_risk_set_twin_is_not():
    assert CODE in _codes(cox.run())
    assert CODE not in _codes(cox.run(fixed=True))


def _train(loss_of, steps=20):
    torch.manual_seed(0)
    x, y = torch.randn(256, 8), torch.randn(256)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for step in range(steps):
            rows = slice(32 * (step % 8), 32 * (step % 8 + 1))
            loss = loss_of(model(x[rows]), y[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def _risk_sets(out, y):
    at_risk = (y[None, :] >= y[:, None]).float()
    theta = out.reshape(-1)
    return -(theta - torch.log((torch.exp(theta)[None, :] * at_risk).sum(dim=1))).mean()


def test_a_risk_set_table_summed_per_sample_is_meant():
    assert CODE not in _codes(_train(_risk_sets))


def test_a_column_against_a_vector_reduced_to_the_loss_is_named():
    assert CODE in _codes(_train(lambda out, y: ((out - y) ** 2).mean()))


def test_a_broadcast_table_summed_over_quantiles_first_is_still_named():
    def pinball(out, y):
        errors = torch.stack([q * (out - y) for q in (0.1, 0.5, 0.9)], dim=1)   # (N, 3, N)
        return errors.abs().sum(dim=1).mean()
    assert CODE in _codes(_train(pinball))


# --- a division by a bare count: NaN on the first batch with nothing to count -----------

from benchmarks.real_bugs import cox_loss_divided_by_zero_events_in_small_batch as cox_count  # noqa: E402,E501


def _born(mon):
    return [f for f in mon.findings() if f.code == "NAN_BORN_IN_FORWARD"]


def test_the_zero_event_cox_case_is_traced_to_its_count_and_its_twin_is_silent():
    born = _born(cox_count.run())
    assert born and born[0].evidence["operation"] == "x / sum(0/1 tensor)"
    assert not _codes(cox_count.run(fixed=True))


def _masked_mean(weights_of, steps=30, empty_at=13):
    """A masked mean ``(errors * mask).sum() / mask.sum()``; the batch of step ``empty_at``
    (not a recorded step) has no positive in its mask."""
    torch.manual_seed(0)
    x, y = torch.randn(512, 8), torch.randn(512)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-2)
    with nd.watch(model, optimizer) as mon:
        for step in range(steps):
            rows = slice(16 * step, 16 * (step + 1))
            weights = weights_of(y[rows])
            if step == empty_at:
                weights = torch.zeros_like(weights)
            errors = (model(x[rows]).squeeze(1) - y[rows]) ** 2
            loss = (errors * weights).sum() / weights.sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return mon


def test_a_masked_mean_over_a_batch_without_positives_is_named_at_its_step():
    born = _born(_masked_mean(lambda y: (y > 0).float()))
    assert born and born[0].step == 13 and born[0].evidence["operation"].startswith("x / sum(")


def test_a_division_by_summed_real_weights_is_not_called_a_count():
    born = _born(_masked_mean(lambda y: y.abs() + 0.5))
    assert not any(f.evidence.get("operation", "").startswith("x / sum(") for f in born)

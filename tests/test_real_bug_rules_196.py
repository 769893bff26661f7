"""CONSISTENCY_TARGET_NOT_DETACHED and TRADES (real-bug batch 196). TRADES' robust term is
KL(f(x) || f(x')) with the clean prediction's graph kept, as the paper trains it; written as
a soft cross-entropy, -f(x) log f(x'), it rewards a confident clean prediction and the model
collapses to one class (yaodongyu/TRADES#12). The rule read both as "a consistency target
not detached"; F.kl_div's own entropy term (p log p, an xlogy of the target with itself)
now marks the divergence, which is named only when the run does not learn."""
import pytest

torch = pytest.importorskip("torch")

from benchmarks.real_bugs import trades_robust_term_soft_cross_entropy as trades  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _problems(mon):
    return {f.code for f in mon.findings() if f.severity in ("warning", "error")}


def test_the_soft_cross_entropy_form_is_named():
    mon = trades.run(fixed=False)
    assert "CONSISTENCY_TARGET_NOT_DETACHED" in _problems(mon)
    rows = mon.run.observed.soft_target_gradients
    assert rows and all(row[4] == 0 for row in rows)      # one way, no entropy term


def test_trades_with_its_kl_divergence_is_silent():
    mon = trades.run(fixed=True)
    rows = mon.run.observed.soft_target_gradients
    assert rows and all(row[1] > 0 and row[4] == 1 for row in rows)   # graph kept, a KL
    assert not _problems(mon)

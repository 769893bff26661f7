"""Real-bug batch 176: F.log_softmax without dim on CTC's (T, N, C) scores normalises each
label over the frames (PyTorch's implicit dim 0): every value stays <= 0, so the check for
positive inputs said nothing (missed as it came). The first calls' inputs are measured over
the label axis (the last) now: CTC_NOT_LOG_PROBABILITIES; the twin (dim=-1) is silent."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from benchmarks.real_bugs import ctc_log_softmax_without_dim_normalises_time as over_time  # noqa: E402,E501
from nndebug.monitor import log_prob_axes  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
CODE = "CTC_NOT_LOG_PROBABILITIES"


def _errors(mon):
    return [f for f in mon.findings() if f.severity in ("warning", "error")]


def test_log_softmax_over_time_is_named_and_its_twin_is_silent():
    found = [f for f in _errors(over_time.run()) if f.code == CODE]
    assert found and found[0].evidence["normalised_over_time"]
    assert not _errors(over_time.run(fixed=True))


@pytest.mark.parametrize("dim, over_labels", [(-1, True), (2, True), (0, False)])
def test_ctc_inputs_are_measured_over_the_label_axis(dim, over_labels):
    scores = torch.randn(24, 4, 11, generator=torch.Generator().manual_seed(0))
    log_probs = torch.log_softmax(scores, dim=dim).numpy()
    label_error, time_error = log_prob_axes.take({log_prob_axes.KEY: log_probs},
                                                 log_probs.shape, "CTCLoss")
    assert (label_error < 1e-5) == over_labels
    assert (time_error < 1e-5) == (not over_labels)


def test_nll_inputs_keep_their_class_axis():
    log_probs = torch.log_softmax(torch.randn(8, 5, 3), dim=1).numpy()
    class_error, _ = log_prob_axes.take({log_prob_axes.KEY: log_probs}, log_probs.shape,
                                        "NLLLoss")
    assert class_error < 1e-5 and np.isfinite(class_error)

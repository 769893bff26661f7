"""Real-bug batch 125 (link prediction): an R-GCN link predictor whose sampled negative
edges are labelled 1 like the true ones scores positives and negatives in one loss call of
twice the model's batch; TARGETS_ALL_ONE_VALUE asked the call to cover exactly the batch
its addend was reduced over and stayed silent. A whole multiple of it is one loss too."""
from types import SimpleNamespace

import pytest

torch = pytest.importorskip("torch")

from benchmarks.bench_real_bugs import PROBLEMS  # noqa: E402
from benchmarks.real_bugs import rgcn_link_prediction_negatives_labelled_true as rgcn  # noqa: E402
from nndebug.rules.constant_targets import _whole_loss  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
CODE = "TARGETS_ALL_ONE_VALUE"


def test_negatives_labelled_true_are_named_and_the_twin_is_silent():
    assert CODE in [f.code for f in rgcn.run().findings() if f.severity in PROBLEMS]
    assert CODE not in [f.code for f in rgcn.run(fixed=True).findings()]


def _ctx(addends):
    observed = SimpleNamespace(loss_reductions=[(step, addends) for step in range(3)])
    return SimpleNamespace(run=SimpleNamespace(observed=observed))


CALL = SimpleNamespace(loss="binary_cross_entropy_with_logits", output_shape=(4896,))
BCE = "BinaryCrossEntropyWithLogitsBackward0"


@pytest.mark.parametrize("addends, whole", [
    ([(BCE, "mean", 1.0, 4896)], True),                 # the call's own batch
    ([(BCE, "mean", 1.0, 2448)], True),                 # positives and negatives concatenated
    ([(BCE, "mean", 1.0, 1000)], False),                # another batch: another call
    ([(BCE, "mean", 1.0, 2448), (BCE, "mean", 1.0, 2448)], False),   # a second addend
    ([("MseLossBackward0", "mean", 1.0, 2448)], False),  # another loss's operation
])
def test_the_whole_loss_is_one_addend_over_a_whole_multiple_of_its_batch(addends, whole):
    assert _whole_loss(_ctx(addends), CALL) is whole

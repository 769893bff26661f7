"""A backbone left out of the optimizer and kept in eval mode is frozen on purpose (real-bug
batch 188). The twin of the 3dvnet case fine-tunes only the head and keeps the pretrained
backbone in eval mode with requires_grad left on; as it came, watch said
OPTIMIZER_MISSING_PARAMS (warning) and TRAINING_IN_EVAL_MODE on it. A parameter the watched
optimizer does not hold now counts as frozen for the eval-mode check, and parameters left
out of the optimizer inside a part kept in eval mode are said as info. A new layer left out
of the optimizer groups (the SiamCAR case, in train mode) is still a warning, and a
backbone in eval mode that the optimizer does step is still TRAINING_IN_EVAL_MODE."""
import pytest

torch = pytest.importorskip("torch")

from benchmarks.real_bugs import adapter_layer_left_out_of_optimizer_groups as adapter  # noqa: E402,E501
from benchmarks.real_bugs import backbone_frozen_by_eval_mode_still_optimized as parked  # noqa: E402,E501

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _by_code(mon):
    return {f.code: f.severity for f in mon.findings()}


def test_a_backbone_parked_in_eval_mode_outside_the_optimizer_is_no_problem():
    found = _by_code(parked.run(fixed=True))
    assert found.get("OPTIMIZER_MISSING_PARAMS") == "info"
    assert "TRAINING_IN_EVAL_MODE" not in found
    assert not {code for code, severity in found.items() if severity in ("warning", "error")}


def test_an_eval_mode_backbone_the_optimizer_steps_is_still_named():
    assert _by_code(parked.run()).get("TRAINING_IN_EVAL_MODE") == "warning"


def test_a_new_layer_left_out_of_the_optimizer_is_still_a_warning():
    assert _by_code(adapter.run()).get("OPTIMIZER_MISSING_PARAMS") == "warning"
    assert "OPTIMIZER_MISSING_PARAMS" not in _by_code(adapter.run(fixed=True))

"""Real-bug batch 158 (memory-saving training code): the recomputation check's private copy
of the model carries the user's hooks. A LoRA run whose frozen input layer has the forward
hook ``enable_input_require_grads`` installs (so that reentrant checkpoints pass a gradient
to the adapters inside them) was checked without that hook: zero gradients against real
differences, RECOMPUTED_FORWARD_DIFFERS on a healthy run. The twin is silent now; the bug
run (no hook: the adapters get no gradient) is still named, and a checkpoint that redraws
its dropout masks still is."""
import pytest

torch = pytest.importorskip("torch")

from benchmarks.real_bugs import lora_blocks_checkpointed_on_frozen_input as lora  # noqa: E402
from benchmarks.real_bugs import \
    reentrant_checkpoint_without_rng_state_redraws_dropout as redraws  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def _codes(mon):
    return {f.code for f in mon.findings() if f.severity in PROBLEMS}


def test_the_hooked_lora_twin_is_silent():
    mon = lora.run(fixed=True)
    assert mon.held_out_accuracy > 0.8
    assert not _codes(mon)


def test_the_adapters_without_a_gradient_are_still_named():
    assert "NO_GRADIENT" in _codes(lora.run())


def test_dropout_redrawn_in_the_recomputation_is_still_named():
    assert "RECOMPUTED_FORWARD_DIFFERS" in _codes(redraws.run())

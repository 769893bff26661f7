"""nndebug's torch function modes leave torch's mode stack as they found it: a mode retired
while another owner's mode lay above it is popped once that one goes, whoever pops it."""
import pytest

torch = pytest.importorskip("torch")

from nndebug.monitor.function_modes import OwnedModes, backward_mode, top_mode  # noqa: E402


def _depth():
    return torch._C._len_torch_function_stack()


def test_a_mode_retired_under_another_owners_mode_is_popped_when_that_one_goes():
    first, second = OwnedModes(), OwnedModes()
    depth = _depth()
    first.push(backward_mode(lambda loss: None))
    second.push(backward_mode(lambda loss: None))
    first.retire()                          # not on top: it must wait
    assert _depth() == depth + 2 and first.stale
    second.retire()                         # the top goes, and the one waiting under it
    assert _depth() == depth and not first.stale and not second.stale


def test_a_mode_under_a_users_mode_waits_for_it():
    owned = OwnedModes()
    owned.push(backward_mode(lambda loss: None))
    users = backward_mode(lambda loss: None)
    with users:
        owned.retire()
        assert top_mode() is users and owned.stale      # the user's mode is not popped
    owned.drop_stale()
    assert not owned.stale and top_mode() is None


def test_a_watched_run_leaves_no_mode_on_the_stack():
    from benchmarks.real_bugs import ppo_ratio_against_its_own_detached_copy as ppo
    depth = _depth()
    for steps in (8, 12):      # the run ending on a step a mode is armed on, and after
        ppo.run(steps=steps)
        assert _depth() == depth

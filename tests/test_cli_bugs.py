"""`nndebug bugs list|show|hunt`, driven through nndebug.cli.main like a user would."""
import numpy as np
import pytest

import minigrad as mg
from minigrad.bugs import catalogue, hunt
from minigrad.ops import REGISTRY
from nndebug.cli import main

BUGS = catalogue()


def run_cli(capsys, *argv):
    code = main(["bugs", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def registry_backwards():
    return {name: vars(cls).get("backward") for name, cls in REGISTRY.items()}


@pytest.fixture(scope="module")
def digits():
    return hunt.split_digits()


# --- list and show -------------------------------------------------------------------

def test_list_names_every_bug_with_its_op(capsys):
    code, out, _ = run_cli(capsys, "list")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["name", "op", "summary"]
    for bug in BUGS:
        row = next(line for line in lines if line.startswith(bug.name + " "))
        assert row.split()[1] == bug.op
    assert f"{len(BUGS)} bugs" in out


def test_list_filters_by_op_and_rejects_an_unknown_op(capsys):
    code, out, _ = run_cli(capsys, "list", "--op", "matmul")
    assert code == 0
    assert BUGS[0].name in out
    assert all(bug.name not in out for bug in BUGS if bug.op != "matmul")
    code, out, err = run_cli(capsys, "list", "--op", "matmull")
    assert code == 2 and "did you mean 'matmul'" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("bug", BUGS[:3] + BUGS[-3:], ids=lambda b: b.name)
def test_show_prints_the_lesson_and_a_live_demonstration(capsys, bug):
    code, out, _ = run_cli(capsys, "show", bug.name)
    assert code == 0
    assert out.startswith(bug.name) and f"op: {bug.op}" in out
    for line in bug.lesson.splitlines():
        assert line.strip() in out
    assert "(wrong)" in out                           # the example's gradient really changes
    assert f'plant("{bug.name}")' in out


def test_show_unknown_name_is_a_one_line_usage_error(capsys):
    code, out, err = run_cli(capsys, "show", "relu_no_msk")
    assert code == 2
    assert "no bug named 'relu_no_msk'" in err and "did you mean 'relu_no_mask'" in err
    assert len(err.strip().splitlines()) == 1


def test_bugs_without_an_action_is_a_usage_error(capsys):
    code, _, err = run_cli(capsys)
    assert code == 2 and "list" in err and "hunt" in err


# --- hunt ----------------------------------------------------------------------------

def test_hunt_pick_is_decided_by_the_seed_alone(digits):
    first, again = hunt.pick(11, digits), hunt.pick(11, hunt.split_digits())
    assert (first.bug.name, first.model.key) == (again.bug.name, again.model.key)
    picked = {hunt.pick(seed, digits).bug.name for seed in range(30)}
    assert len(picked) >= 10                          # seeds spread over the catalogue


def test_every_bug_has_a_hunt_model_on_which_it_shows(digits):
    for bug in BUGS:
        assert any(hunt.shows_bug(m, bug, digits) for m in hunt.MODELS), bug.name


def test_picked_model_really_runs_the_bugs_op(digits):
    for seed in range(8):
        picked = hunt.pick(seed, digits)
        if picked.bug.op != "engine":
            assert picked.bug.op in hunt.ops_of(picked.model, digits)


def test_hunt_prints_both_runs_and_the_gradient_check_without_naming_the_bug(capsys, digits):
    seed = 5
    picked = hunt.pick(seed, digits)
    before, rng_before = registry_backwards(), mg.get_rng_state()
    code, out, err = run_cli(capsys, "hunt", "--seed", str(seed), "--steps", "20")
    assert code == 0, err
    assert "reference (no bug)" in out and "with the planted bug" in out
    assert "nndebug.gradcheck" in out and "nndebug.locate" in out
    assert f"--seed {seed} --reveal GUESS" in out
    assert picked.bug.name not in out                 # the hunt does not give it away
    after = registry_backwards()
    assert all(before[name] is after[name] for name in before)
    assert mg.get_rng_state() == rng_before


def test_hunt_without_checks_skips_nndebug(capsys):
    code, out, _ = run_cli(capsys, "hunt", "--seed", "3", "--steps", "10", "--no-checks")
    assert code == 0 and "with the planted bug" in out and "nndebug.gradcheck" not in out
    assert "HuntSession(3)" in out                    # how to load it into Python


def test_planted_training_differs_from_the_reference(digits):
    picked = hunt.pick(2, digits)
    reference, _ = hunt.train(picked.model, digits, steps=15, seed=2)
    again, _ = hunt.train(picked.model, digits, steps=15, seed=2)
    planted, _ = hunt.train(picked.model, digits, steps=15, seed=2, bug=picked.bug.name)
    assert reference.losses == again.losses           # same seed, same run
    assert reference.losses[0] == planted.losses[0]   # same start: the bug acts in backward only
    assert reference.losses != planted.losses


def test_reveal_says_right_for_the_bug_and_for_its_op(capsys, digits):
    picked = hunt.pick(7, digits)
    code, out, _ = run_cli(capsys, "hunt", "--seed", "7", "--reveal", picked.bug.name)
    assert code == 0 and out.startswith("Right!") and picked.bug.lesson.splitlines()[0] in out
    code, out, _ = run_cli(capsys, "hunt", "--seed", "7", "--reveal", picked.bug.op)
    assert code == 0 and out.startswith("Right!")


def test_a_wrong_guess_keeps_the_answer_secret_and_exits_1(capsys, digits):
    picked = hunt.pick(7, digits)
    other = next(bug for bug in BUGS if bug.op != picked.bug.op)
    code, out, _ = run_cli(capsys, "hunt", "--seed", "7", "--reveal", other.name)
    assert code == 1
    assert not out.startswith("Right") and picked.bug.name not in out and "--give-up" in out
    code, out, _ = run_cli(capsys, "hunt", "--seed", "7", "--reveal", other.op)
    assert code == 1 and out.startswith("Not") and picked.bug.name not in out
    code, out, _ = run_cli(capsys, "hunt", "--seed", "7", "--give-up")
    assert code == 1 and picked.bug.name in out


def test_the_hunt_model_loads_in_python_with_the_bug_secret(digits):
    import nndebug as nd
    from nndebug.commands.bugs import HuntSession
    session = HuntSession(7, samples=16)
    assert hunt.pick(7, digits).bug.name not in repr(session)
    assert nd.gradcheck(session.model, session.x, session.y, session.loss_fn).passed
    with session.bug_planted():
        assert not nd.gradcheck(session.model, session.x, session.y, session.loss_fn).passed


@pytest.mark.parametrize("argv, message", [
    (["hunt", "--seed", "7", "--reveal", "tanhh"], "no bug or op named 'tanhh'"),
    (["hunt", "--reveal", "relu"], "--reveal needs the --seed"),
    (["hunt", "--seed", "-1"], "non-negative"),
    (["hunt", "--seed", "1", "--steps", "3"], "--steps must be at least 10"),
])
def test_hunt_usage_errors(capsys, argv, message):
    code, _, err = run_cli(capsys, *argv)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_hunt_seed_must_be_an_integer(capsys):
    with pytest.raises(SystemExit) as info:
        main(["bugs", "hunt", "--seed", "abc"])
    assert info.value.code == 2


def test_hunt_models_train_cleanly():
    """Sanity for the reference side of the hunt: a short clean run lowers the loss."""
    digits = hunt.split_digits()
    run, _ = hunt.train(hunt.model("relu-mlp"), digits, steps=60, seed=0)
    assert np.mean(run.losses[-10:]) < 0.7 * np.mean(run.losses[:10])

"""The command line on bad input: exit codes only 0/1/2, one line on stderr and no
traceback (``--debug`` shows it), output paths checked before any work, and the
friction a learner meets first (eval mode, repeated warnings, `zoo list`)."""
import os
import textwrap

import pytest

from nndebug.cli import main

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.usefixtures("one_torch_thread")

TARGETS = textwrap.dedent('''
    import sys
    import torch


    def make():
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
        return dict(model=model, inputs=torch.randn(32, 3), targets=torch.randint(0, 3, (32,)),
                    loss_fn=torch.nn.CrossEntropyLoss())


    def exits():
        sys.exit(7)


    def loss_exits():
        problem = make()
        problem["loss_fn"] = lambda output, target: sys.exit(5)
        return problem


    def loss_raises():
        problem = make()

        def loss(output, target):
            raise RuntimeError("the loss blew up")
        problem["loss_fn"] = loss
        return problem


    def labels_out_of_range():
        problem = make()
        problem["targets"] = torch.randint(5, 9, (32,))
        return problem


    def integer_inputs():
        problem = make()
        problem["inputs"] = torch.randint(0, 3, (32, 3))
        return problem


    def left_in_eval_mode():
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(3, 16), torch.nn.ReLU(), torch.nn.Dropout(0.3),
                                    torch.nn.Linear(16, 3)).eval()
        return dict(model=model, inputs=torch.randn(64, 3), targets=torch.randint(0, 3, (64,)),
                    loss_fn=torch.nn.CrossEntropyLoss())


    def broadcasting():
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(3, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
        return dict(model=model, inputs=torch.randn(64, 3), targets=torch.randn(64),
                    loss_fn=torch.nn.MSELoss())
''')


@pytest.fixture
def target(tmp_path, monkeypatch):
    (tmp_path / "targets.py").write_text(TARGETS)
    monkeypatch.chdir(tmp_path)
    return lambda name: f"targets.py:{name}"


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


QUICK = ("--no-progress", "--steps", "10")


@pytest.mark.parametrize("argv, message", [
    (["gradcheck", "exits"], "called sys.exit(7)"),
    (["lr-find", "loss_exits", *QUICK], "called sys.exit(5)"),
    (["lr-find", "loss_raises", *QUICK], "RuntimeError: the loss blew up"),
    (["lr-find", "labels_out_of_range", *QUICK], "out of bounds"),
    (["lr-find", "integer_inputs", *QUICK], "inputs are int64 but the model computes in float32"),
    (["gradcheck", "integer_inputs"], "inputs are int64"),
    (["lr-find", "make", *QUICK, "--csv", "missing/lr.csv"], "the folder missing does not exist"),
    (["lr-find", "make", *QUICK, "--plot", "missing/lr.png"], "the folder missing does not exist"),
    (["check", "make", "--json", "missing/check.json"], "the folder missing does not exist"),
])
def test_errors_are_one_line_with_exit_code_2(capsys, target, argv, message):
    argv[1] = target(argv[1])
    code, _, err = run_cli(capsys, *argv)
    assert code == 2, err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_debug_shows_the_traceback_of_an_unexpected_error(capsys, target, monkeypatch):
    import nndebug.commands.gradcheck as command

    def broken(args):
        raise KeyError("a bug of nndebug itself")
    monkeypatch.setattr(command, "run", broken)
    code, _, err = run_cli(capsys, "gradcheck", target("make"))
    assert code == 2 and "KeyError" in err and "--debug" in err
    with pytest.raises(KeyError):
        main(["--debug", "gradcheck", target("make")])


def test_lr_find_writes_into_a_folder_and_names_the_file(capsys, target, tmp_path):
    folder = tmp_path / "plots"
    folder.mkdir()
    code, out, _ = run_cli(capsys, "lr-find", target("make"), *QUICK, "--plot", str(folder),
                           "--csv", str(folder))
    assert code in (0, 1)
    assert os.path.exists(folder / "lr-find.png") and f"wrote {folder / 'lr-find.png'}" in out
    assert os.path.exists(folder / "lr-find.csv")
    code, out, _ = run_cli(capsys, "lr-find", target("make"), *QUICK, "--plot", "curve")
    assert os.path.exists("curve.png") and "wrote curve.png" in out


def test_check_does_not_call_a_model_in_eval_mode_ready_to_train(capsys, target):
    code, out, _ = run_cli(capsys, "check", target("left_in_eval_mode"), "--steps", "50")
    assert code == 1 and "TRAINING_IN_EVAL_MODE" in out and "ready to train" not in out
    assert "start with the first WARN" in out or "start with the first FAIL" in out


def test_check_prints_the_broadcast_warning_as_its_own_line_only(capsys, target):
    with _no_warning_filter():
        code, out, err = run_cli(capsys, "check", target("broadcasting"), "--steps", "20",
                                 "--train-steps", "5")
    assert code == 1 and "broadcasts them to (64, 64)" in out
    assert "Using a target size" not in out + err


def _no_warning_filter():
    import contextlib
    import warnings

    @contextlib.contextmanager
    def block():
        with warnings.catch_warnings():
            warnings.simplefilter("default")   # what a user's shell shows
            yield
    return block()


def test_threads_are_restored_after_a_command(capsys, target):
    torch.set_num_threads(2)
    run_cli(capsys, "gradcheck", target("make"))
    assert torch.get_num_threads() == 2


def test_zoo_list_lists_like_bugs_list(capsys):
    code, out, _ = run_cli(capsys, "zoo", "list")
    assert code == 0 and "expected finding" in out

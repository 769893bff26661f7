"""`nndebug gradcheck TARGET`: the table, the suspects, and exit codes 0 / 1 / 2."""
import subprocess
import sys
import textwrap

import pytest

from nndebug.cli import UsageError, main
from nndebug.target import load_target

pytest.importorskip("torch")            # the targets below are torch models
pytestmark = pytest.mark.usefixtures("one_torch_thread")

TARGETS = textwrap.dedent('''
    import numpy as np
    import torch

    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x                       # bug: 2 * g * x

    class Sq(torch.nn.Module):
        def forward(self, x):
            return Square.apply(x)

    def _data():
        torch.manual_seed(0)
        return torch.randn(5, 4), torch.tensor([0, 1, 1, 0, 1])

    def buggy():
        x, y = _data()
        model = torch.nn.Sequential(torch.nn.Linear(4, 6), Sq(), torch.nn.Linear(6, 2))
        return dict(model=model, inputs=x, targets=y, loss_fn=torch.nn.CrossEntropyLoss())

    def healthy():
        x, y = _data()
        model = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.Tanh(), torch.nn.Linear(6, 2))
        return dict(model=model, inputs=x, targets=y, loss_fn=torch.nn.CrossEntropyLoss(),
                    optimizer=None)

    def minigrad_bug():
        import minigrad as mg
        import minigrad.nn as nn
        rng = np.random.default_rng(0)
        model = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 2))
        x, y = mg.tensor(rng.standard_normal((5, 4))), mg.tensor(rng.integers(0, 2, 5))

        def loss_fn(out, target):
            return nn.functional.cross_entropy(out, target)
        return dict(model=model, inputs=x, targets=y, loss_fn=loss_fn)

    def not_a_dict():
        return [1, 2]

    def missing_keys():
        return dict(model=None)

    def not_a_model():
        return dict(model="resnet", inputs=1, targets=1, loss_fn=len)

    def raises():
        raise RuntimeError("dataset not found")

    def vector_loss():
        x, y = _data()
        model = torch.nn.Linear(4, 2)
        return dict(model=model, inputs=x, targets=y,
                    loss_fn=torch.nn.CrossEntropyLoss(reduction="none"))

    def nan_inputs():
        x, y = _data()
        x[0, 0] = float("nan")
        return dict(model=torch.nn.Linear(4, 2), inputs=x, targets=y,
                    loss_fn=torch.nn.CrossEntropyLoss())

    not_callable = 42
''')


@pytest.fixture(scope="module")
def targets(tmp_path_factory):
    path = tmp_path_factory.mktemp("targets") / "models.py"
    path.write_text(TARGETS)
    return str(path)


def test_healthy_target_exits_0_with_a_table(targets, capsys):
    assert main(["gradcheck", f"{targets}:healthy"]) == 0
    out = capsys.readouterr().out
    assert "PASSED" in out and "0.weight" in out and "2.bias" in out
    assert "Every gradient agrees" in out


def test_buggy_target_exits_1_and_names_the_module(targets, capsys):
    assert main(["gradcheck", f"{targets}:buggy", "--mode", "full", "--seed", "3"]) == 1
    out = capsys.readouterr().out
    assert "MISMATCH" in out and "module '1' (Sq)" in out
    assert "re-run alone" in out and "(full," in out and "Fix:" in out


def test_minigrad_target_names_the_primitive(targets, capsys):
    import minigrad as mg
    with mg.bugs.plant("tanh_not_squared"):
        code = main(["gradcheck", f"{targets}:minigrad_bug", "--mode", "fast"])
    out = capsys.readouterr().out
    assert code == 1 and "primitive tanh" in out and "primitive 'tanh'" in out


@pytest.mark.parametrize("spec, message", [
    ("{t}:nowhere", "has no function 'nowhere'"),
    ("{t}:not_callable", "not a function"),
    ("{t}:not_a_dict", "returned a list"),
    ("{t}:missing_keys", "without inputs, targets, loss_fn"),
    ("{t}:not_a_model", "torch.nn.Module and minigrad.nn.Module"),
    ("{t}:raises", "raised RuntimeError: dataset not found"),
    ("{t}", "path/to/file.py:factory"),
    ("/no/such/file.py:make", "no such file"),
    ("{t}:vector_loss", "scalar"),
    ("{t}:nan_inputs", "NaN"),
])
def test_bad_targets_exit_2_with_one_line(targets, capsys, spec, message):
    assert main(["gradcheck", spec.format(t=targets)]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err
    assert len(err.splitlines()) == 1 and "Traceback" not in err


def test_bad_mode_is_a_usage_error(targets, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["gradcheck", f"{targets}:healthy", "--mode", "slow"])
    assert exit_info.value.code == 2


def test_load_target_fills_optional_keys_and_keeps_extras(tmp_path):
    path = tmp_path / "t.py"
    path.write_text("import helper\n"
                    "def make():\n"
                    "    return dict(model=helper.model(), inputs=1, targets=2, loss_fn=len,\n"
                    "                batches=[1])\n")
    (tmp_path / "helper.py").write_text("import torch\n"
                                        "def model():\n    return torch.nn.Linear(2, 2)\n")
    loaded = load_target(f"{path}:make")
    assert loaded["optimizer"] is None and loaded["batches"] == [1]
    assert str(tmp_path) not in sys.path
    with pytest.raises(UsageError, match="without epochs"):
        load_target(f"{path}:make", required=("model", "inputs", "targets", "loss_fn", "epochs"))


def test_syntax_errors_are_one_line(tmp_path):
    path = tmp_path / "broken.py"
    path.write_text("def make(:\n    pass\n")
    with pytest.raises(UsageError, match="syntax error on line 1"):
        load_target(f"{path}:make")


def test_the_command_is_listed_and_runs_as_a_program(targets):
    result = subprocess.run([sys.executable, "-m", "nndebug", "gradcheck", "--help"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and "--mode" in result.stdout and "TARGET" in result.stdout

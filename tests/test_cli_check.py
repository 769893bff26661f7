"""`nndebug check TARGET` and `nndebug lr-find TARGET`: verdicts per step, exit codes 0/1/2,
one-line usage errors, and the user's model untouched."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

from nndebug.cli import main

torch = pytest.importorskip("torch")


pytestmark = pytest.mark.usefixtures("one_torch_thread")

TARGETS = textwrap.dedent('''
    import numpy as np
    import torch
    from minigrad.data import load_digits


    def _digits(n=128, standardise=True):
        x, y = load_digits()
        x, y = x[:n], y[:n]
        if standardise:
            x = (x - x.mean(0)) / (x.std(0) + 1e-6)
        return torch.tensor(x, dtype=torch.float32), torch.tensor(y)


    def _mlp(*extra):
        torch.manual_seed(0)
        return torch.nn.Sequential(torch.nn.Linear(64, 32), torch.nn.ReLU(), torch.nn.Linear(32, 10),
                                   *extra)


    def healthy():
        x, y = _digits()
        model = _mlp()
        return dict(model=model, inputs=x, targets=y, loss_fn=torch.nn.CrossEntropyLoss(),
                    optimizer=torch.optim.Adam(model.parameters(), lr=1e-3))


    def double_softmax():
        x, y = _digits()
        return dict(model=_mlp(torch.nn.Softmax(dim=1)), inputs=x, targets=y,
                    loss_fn=torch.nn.CrossEntropyLoss())


    def labels_out_of_range():
        x, y = _digits()
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(64, 32), torch.nn.ReLU(), torch.nn.Linear(32, 5))
        return dict(model=model, inputs=x, targets=y, loss_fn=torch.nn.CrossEntropyLoss())


    def broadcast_regression():
        g = torch.Generator().manual_seed(0)
        x = torch.randn(64, 4, generator=g)
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
        return dict(model=model, inputs=x, targets=x.sum(1), loss_fn=torch.nn.MSELoss())


    def raw_pixels():
        x, y = _digits(standardise=False)
        return dict(model=_mlp(), inputs=x * 16, targets=y, loss_fn=torch.nn.CrossEntropyLoss())


    def minigrad_healthy():
        import minigrad as mg
        import minigrad.nn as nn
        import minigrad.optim as optim
        x, y = load_digits()
        mg.manual_seed(0)
        model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))
        return dict(model=model, inputs=x[:128], targets=y[:128], loss_fn=nn.CrossEntropyLoss(),
                    optimizer=optim.SGD(model.parameters(), lr=0.1, momentum=0.9))


    def flat_loss():
        d = healthy()
        d["loss_fn"] = lambda out, t: (out * 0.0).sum() + 1.0
        return d


    def with_batches():
        d = healthy()
        d["batches"] = [(d["inputs"][i:i + 16], d["targets"][i:i + 16]) for i in range(0, 128, 16)]
        return d


    def not_a_dict():
        return [1, 2]


    def raises():
        raise RuntimeError("dataset not found")
''')


@pytest.fixture(scope="module")
def targets(tmp_path_factory):
    path = tmp_path_factory.mktemp("targets") / "targets.py"
    path.write_text(TARGETS)
    return str(path)


def run_cli(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def verdicts(stdout):
    return {line[1:5]: line for line in stdout.splitlines() if line.startswith("[")}, \
        [line.split("]")[0][1:] for line in stdout.splitlines() if line.startswith("[")]


# --- nndebug check ----------------------------------------------------------------------------

def test_healthy_torch_target_passes_every_step(targets, capsys):
    code, out, _ = run_cli(capsys, "check", f"{targets}:healthy")
    _, order = verdicts(out)
    assert order == ["PASS"] * 7, out
    for step in ("parameters", "output & labels", "overfit one batch", "training steps",
                 "gradient check", "dependencies", "data"):
        assert f"] {step}" in out
    assert "2,410 trainable parameters" in out
    assert code == 0 and "ready to train" in out


def test_healthy_minigrad_target_passes(targets, capsys):
    code, out, _ = run_cli(capsys, "check", f"{targets}:minigrad_healthy")
    assert code == 0, out
    assert "minigrad model" in out


def test_double_softmax_fails_with_the_reason(targets, capsys):
    code, out, _ = run_cli(capsys, "check", f"{targets}:double_softmax")
    assert code == 1
    line = [l for l in out.splitlines() if "] output & labels" in l][0]
    assert line.startswith("[FAIL]") and "remove the softmax" in line
    assert "[FAIL] overfit one batch" in out and "DOUBLE_SOFTMAX" in out
    assert "problems" in out.splitlines()[-1]


def test_labels_outside_the_output_range_fail(targets, capsys):
    code, out, _ = run_cli(capsys, "check", f"{targets}:labels_out_of_range")
    assert code == 1
    line = [l for l in out.splitlines() if "] output & labels" in l][0]
    assert line.startswith("[FAIL]") and "labels run from 0 to 9 but the model has 5 outputs" in line


def test_silent_broadcast_in_regression_fails(targets, capsys):
    code, out, _ = run_cli(capsys, "check", f"{targets}:broadcast_regression")
    assert code == 1
    line = [l for l in out.splitlines() if "] output & labels" in l][0]
    assert line.startswith("[FAIL]") and "broadcasts them to (64, 64)" in line


def test_unnormalised_data_warns(targets, capsys, tmp_path):
    report = tmp_path / "check.json"
    code, out, _ = run_cli(capsys, "check", f"{targets}:raw_pixels", "--json", str(report))
    assert code == 1
    assert [l for l in out.splitlines() if "] data" in l][0].startswith("[WARN]")
    assert "NOT_NORMALIZED" in out
    saved = json.loads(report.read_text())
    assert saved["exit_code"] == 1 and [s["name"] for s in saved["steps"]][-1] == "data"
    assert saved["steps"][-1]["verdict"] == "WARN"


def test_checklist_leaves_the_users_model_untouched():
    import torch
    import nndebug as nd
    from nndebug.commands.check import run_checklist
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.BatchNorm1d(16), torch.nn.ReLU(),
                                torch.nn.Dropout(0.1), torch.nn.Linear(16, 3))
    model.eval()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    x, y = torch.randn(64, 8), torch.randint(0, 3, (64,))
    adapter = nd.adapt(model)
    state = adapter.capture_state()
    steps = run_checklist(dict(model=model, inputs=x, targets=y,
                               loss_fn=torch.nn.CrossEntropyLoss(), optimizer=opt), steps=50,
                          train_steps=5)
    assert [s.name for s in steps] == ["parameters", "output & labels", "overfit one batch",
                                       "training steps", "gradient check", "dependencies", "data"]
    assert adapter.state_differences(state) == []
    assert opt.state_dict()["state"] == {} and opt.param_groups[0]["lr"] == 0.05


def test_a_crashing_forward_fails_its_step_and_skips_the_rest():
    import torch
    from nndebug.commands.check import run_checklist
    model = torch.nn.Linear(3, 2)                      # the inputs have 5 features
    steps = run_checklist(dict(model=model, inputs=torch.randn(4, 5), targets=torch.tensor([0, 1, 0, 1]),
                               loss_fn=torch.nn.CrossEntropyLoss()))
    by_name = {s.name: s for s in steps}
    assert by_name["output & labels"].verdict == "FAIL" and "crashed" in by_name["output & labels"].why
    assert [by_name[n].verdict for n in ("overfit one batch", "training steps", "gradient check")] \
        == ["SKIP"] * 3


@pytest.mark.parametrize("spec, message", [
    ("nowhere.py:make", "no such file"),
    ("{targets}", "TARGET must look like path/to/file.py:factory"),
    ("{targets}:missing", "has no function 'missing'"),
    ("{targets}:not_a_dict", "returned a list"),
    ("{targets}:raises", "raised RuntimeError: dataset not found"),
])
def test_bad_targets_exit_2_with_one_line(targets, capsys, spec, message):
    code, out, err = run_cli(capsys, "check", spec.format(targets=targets))
    assert code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1


def test_exit_code_2_through_the_real_command_line():
    """The console path end to end (a new interpreter), on the cheap usage-error path; the
    other exit codes are tested through main(), which is what the console script returns."""
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    bad = subprocess.run([sys.executable, "-m", "nndebug", "check", "nowhere.py:make"],
                         capture_output=True, text=True, timeout=120, env=env)
    assert bad.returncode == 2 and bad.stderr.startswith("nndebug: error: no such file")
    assert bad.stdout == ""


# --- nndebug lr-find ------------------------------------------------------------------------------

def test_lr_find_writes_csv_and_plot(targets, capsys, tmp_path):
    csv_path, png_path = tmp_path / "lr.csv", tmp_path / "lr.png"
    code, out, _ = run_cli(capsys, "lr-find", f"{targets}:healthy", "--csv", str(csv_path),
                           "--plot", str(png_path))
    assert code == 0, out
    assert "suggested learning rate:" in out and "(Adam)" in out
    rows = csv_path.read_text().splitlines()
    assert rows[0] == "step,lr,loss,smoothed_loss,fixed_batch_loss" and len(rows) > 11
    assert png_path.read_bytes()[:4] == b"\x89PNG"
    suggested = float(out.split("suggested learning rate:")[1].split()[0])
    assert 1e-5 < suggested < 1.0


def test_lr_find_uses_the_targets_batches_and_options(targets, capsys):
    code, out, _ = run_cli(capsys, "lr-find", f"{targets}:with_batches", "--steps", "30",
                           "--end-lr", "1")
    assert code == 0 and "30 steps" in out or "stopped early" in out


def test_lr_find_without_a_falling_loss_exits_1(targets, capsys):
    code, out, _ = run_cli(capsys, "lr-find", f"{targets}:flat_loss", "--steps", "20")
    assert code == 1 and "no suggestion" in out


def test_lr_find_bad_arguments_exit_2(targets, capsys):
    code, _, err = run_cli(capsys, "lr-find", f"{targets}:healthy", "--steps", "3")
    assert code == 2 and "steps must be an integer >= 10" in err
    code, _, err = run_cli(capsys, "lr-find", f"{targets}:healthy", "--batch-size", "0")
    assert code == 2 and "--batch-size must be a positive integer" in err
    with pytest.raises(SystemExit) as exit_info:
        main(["lr-find"])
    assert exit_info.value.code == 2

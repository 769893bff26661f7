"""`nndebug demo` and `nndebug zoo` from the command line (run in-process)."""
import json

import pytest

from nndebug import cli
from nndebug.commands import demo as demo_command

pytest.importorskip("torch")


@pytest.fixture
def short_tour(monkeypatch):
    """The demo's machinery on three runs (the full tour is `make demo`)."""
    monkeypatch.setattr(demo_command, "TOUR", ["torch/healthy-mlp", "torch/missing-zero-grad",
                                               "minigrad/double-softmax"])


def test_demo_writes_text_json_and_plots(tmp_path, short_tour, capsys):
    pytest.importorskip("matplotlib")
    out = tmp_path / "report"
    assert cli.main(["demo", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "GRADIENTS_ACCUMULATING" in printed and "DOUBLE_SOFTMAX" in printed
    assert "3/3 runs got their expected diagnosis" in printed
    readme = (out / "README.md").read_text()
    assert "torch/missing-zero-grad" in readme and "minigrad/double-softmax" in readme
    text = (out / "report.txt").read_text()
    assert "fix:" in text and "No problems found" in text
    report = json.loads((out / "report.json").read_text())
    assert [c["name"] for c in report["cases"]] == demo_command.TOUR
    assert all(c["passed"] for c in report["cases"])
    for case in report["cases"]:
        with open(out / case["plot"], "rb") as handle:
            assert handle.read(8) == b"\x89PNG\r\n\x1a\n"


def test_demo_tour_covers_both_frameworks_and_the_lessons_networks():
    from nndebug import zoo
    names = {c.name for c in zoo.cases()}
    assert set(demo_command.TOUR) <= names
    frameworks = {name.split("/")[0] for name in demo_command.TOUR}
    assert frameworks == {"torch", "minigrad"}
    for lesson in ("dead-relu-bias", "dead-relu-lr", "vanishing-sigmoid", "exploding-gradients",
                   "missing-zero-grad", "lr-too-high", "unnormalized-inputs"):
        assert f"torch/{lesson}" in demo_command.TOUR


def test_demo_with_tensorboard_and_no_plots(tmp_path, monkeypatch):
    pytest.importorskip("tensorboard")
    monkeypatch.setattr(demo_command, "TOUR", ["minigrad/healthy-mlp"])
    out = tmp_path / "r"
    assert cli.main(["demo", "--out", str(out), "--no-plots", "--tensorboard"]) == 0
    assert not list((out / "plots").iterdir())
    assert list((out / "tensorboard" / "minigrad-healthy-mlp").iterdir())


def test_zoo_lists_runs_one_and_shows_the_source(capsys):
    assert cli.main(["zoo"]) == 0
    listing = capsys.readouterr().out
    assert "torch/dead-relu-bias" in listing and "minigrad/healthy-mlp" in listing
    assert cli.main(["zoo", "torch/double-softmax"]) == 1          # problems found
    run = capsys.readouterr().out
    assert "DOUBLE_SOFTMAX" in run and "PASS" in run
    assert cli.main(["zoo", "minigrad/healthy-mlp", "--steps", "30"]) == 0
    assert cli.main(["zoo", "torch/detached-graph", "--show"]) == 0
    assert "# BUG:" in capsys.readouterr().out


def test_zoo_all_prints_a_pass_table(monkeypatch, capsys):
    from nndebug import zoo
    chosen = [zoo.get("torch/nan-inputs"), zoo.get("minigrad/healthy-mlp")]
    monkeypatch.setattr(zoo, "cases", lambda framework=None: chosen)
    assert cli.main(["zoo", "--all"]) == 0
    table = capsys.readouterr().out
    assert "| torch/nan-inputs " in table and "2/2 cases" in table


def test_zoo_usage_errors_exit_2(capsys):
    assert cli.main(["zoo", "no-such-case"]) == 2
    assert "nndebug zoo" in capsys.readouterr().err
    assert cli.main(["zoo", "missing-zero-grad"]) == 2            # ambiguous
    assert cli.main(["zoo", "torch/healthy-mlp", "--steps", "0"]) == 2

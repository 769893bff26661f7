"""Every command in docs/ runs: the ```python blocks and the shell `nndebug` commands.

How a document is run (one document per test, in a fresh temporary directory, blocks in
the order they appear):

- ```python file=NAME    the block is written to the file NAME (a target a later command uses)
- ```python              executed; all python blocks of a document share one namespace,
                         like cells of one notebook
- ```shell (or bash / console)
                         every line that starts with `nndebug ` (or `$ nndebug `) is run
                         through the command line's entry point (`nndebug.cli.main`, what the
                         console script calls); a trailing `# exit code N` says which exit
                         code the document promises (default 0), and the test holds it to it
- anything else (```text output samples) is not run, and may not contain commands
"""
import contextlib
import io
import pathlib
import re
import shlex

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOCS = sorted((ROOT / "docs").glob("*.md"))
FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```\s*$", re.S | re.M)
SHELL_KINDS = {"shell", "bash", "console", "sh"}
EXIT = re.compile(r"#\s*exit code\s+(\d+)")


def blocks(path):
    """[(kind, info, body)] of the fenced blocks of a markdown file, in order."""
    found = []
    for match in FENCE.finditer(path.read_text()):
        info = match.group(1).strip().split()
        kind = info[0] if info else ""
        found.append((kind, dict(part.split("=", 1) for part in info[1:] if "=" in part),
                      match.group(2)))
    return found


def commands(body):
    """(argv after 'nndebug', expected exit code) for each nndebug line of a shell block."""
    out = []
    for line in body.splitlines():
        line = line.strip()
        if line.startswith("$ "):
            line = line[2:]
        if not line.startswith("nndebug "):
            continue
        expected = EXIT.search(line)
        command = line.split("#", 1)[0]
        out.append((shlex.split(command)[1:], int(expected.group(1)) if expected else 0))
    return out


def run_command(argv):
    """`nndebug ARGV` through the command line's own entry point, in this process (the same
    code path as the console script, without paying for a new interpreter and torch import
    per command); returns (exit code, stdout, stderr)."""
    from nndebug.cli import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exit_:          # argparse usage errors
            code = exit_.code
    return code, out.getvalue(), err.getvalue()


def test_the_docs_exist_and_have_runnable_content():
    names = {p.name for p in DOCS}
    assert {"checklist.md", "diagnosis_prompt.md", "tutorial.md"} <= names
    for path in DOCS:
        kinds = [kind for kind, _, _ in blocks(path)]
        assert "python" in kinds, f"{path.name} has no python block"


def looks_like_a_command(line):
    """`nndebug SUBCOMMAND ...` (with or without a `$ ` prompt) for a real subcommand."""
    from nndebug.cli import COMMANDS
    words = line.strip().removeprefix("$ ").split()
    return len(words) >= 2 and words[0] == "nndebug" and \
        words[1] in {c.replace("_", "-") for c in COMMANDS}


@pytest.mark.parametrize("path", DOCS, ids=[p.name for p in DOCS])
def test_no_command_hides_in_a_block_that_is_not_run(path):
    for kind, _, body in blocks(path):
        if kind not in SHELL_KINDS and kind != "python":
            stray = [l for l in body.splitlines() if looks_like_a_command(l)]
            assert not stray, f"{path.name}: a ```{kind} block holds commands the tests do not run: {stray}"


@pytest.mark.parametrize("path", DOCS, ids=[p.name for p in DOCS])
def test_every_block_of_the_document_runs(path, tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)                      # tiny models: far faster on one thread
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))    # targets written by the document import
    namespace = {"__name__": "__doc__"}
    ran = 0
    try:
        for number, (kind, info, body) in enumerate(blocks(path)):
            where = f"{path.name}, block {number + 1}"
            if kind == "python" and "file" in info:
                (tmp_path / info["file"]).write_text(body)
            elif kind == "python":
                try:
                    exec(compile(body, where, "exec"), namespace)
                except Exception as error:
                    pytest.fail(f"{where} raised {type(error).__name__}: {error}\n{body}")
                ran += 1
            elif kind in SHELL_KINDS:
                for argv, expected in commands(body):
                    code, out, err = run_command(argv)
                    assert code == expected, (
                        f"{where}: `nndebug {' '.join(argv)}` exited {code}, the document says "
                        f"{expected}\n{out[-3000:]}\n{err[-2000:]}")
                    ran += 1
    finally:
        torch.set_num_threads(threads)
    assert ran > 0

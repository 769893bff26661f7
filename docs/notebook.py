"""Turn a tutorial in Markdown into a Jupyter notebook: ``python docs/notebook.py``.

The Markdown stays the one source (``tests/test_docs.py`` runs its blocks); the notebook is
made from it so that learners who live in Jupyter get the same lesson, with findings and
plots shown inline. ``tests/test_notebook.py`` checks that ``docs/tutorial.ipynb`` is up to
date with ``docs/tutorial.md`` and executes it in a real kernel.

How blocks become cells (the conventions of tests/test_docs.py):
- prose -> a Markdown cell;
- ```python -> a code cell; ```python file=NAME -> a ``%%writefile NAME`` cell;
- ```shell lines starting with ``nndebug`` -> a code cell calling the command line's entry
  point (works in any kernel, whether or not the console script is on its PATH);
- ```text (sample output) -> shown as Markdown, since the real output appears when run.
"""
import json
import pathlib
import re
import shlex
import sys

FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```\s*$", re.S | re.M)
SHELL_KINDS = {"shell", "bash", "console", "sh"}


def _cell(kind, text):
    lines = text.strip("\n").splitlines(keepends=True)
    cell = {"cell_type": kind, "metadata": {}, "source": lines}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


def _shell_to_python(body):
    calls = []
    for line in body.splitlines():
        line = line.strip().removeprefix("$ ")
        if line.startswith("nndebug "):
            command = line.split("#", 1)[0]
            calls.append(f"main({shlex.split(command)[1:]!r})")
    if not calls:
        return None
    return "from nndebug.cli import main\n" + "\n".join(calls)


def cells_of(markdown):
    cells, position = [], 0
    for match in FENCE.finditer(markdown):
        prose = markdown[position:match.start()].strip()
        if prose:
            cells.append(_cell("markdown", prose))
        info, body = match.group(1).strip().split(), match.group(2)
        kind = info[0] if info else ""
        options = dict(part.split("=", 1) for part in info[1:] if "=" in part)
        if kind == "python" and "file" in options:
            cells.append(_cell("code", f"%%writefile {options['file']}\n{body}"))
        elif kind == "python":
            cells.append(_cell("code", body))
        elif kind in SHELL_KINDS and _shell_to_python(body):
            cells.append(_cell("code", _shell_to_python(body)))
        else:
            cells.append(_cell("markdown", f"Sample output:\n\n```{kind}\n{body}```"))
        position = match.end()
    tail = markdown[position:].strip()
    if tail:
        cells.append(_cell("markdown", tail))
    return cells


def notebook_of(markdown):
    cells = cells_of(markdown)
    for number, cell in enumerate(cells):
        cell["id"] = f"cell-{number}"           # stable ids: the file only changes with the text
    return {"cells": cells, "nbformat": 4, "nbformat_minor": 5,
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                        "language": "python"},
                         "language_info": {"name": "python"}}}


def render(markdown):
    """The notebook as the exact text written to disk (stable, so it can be compared)."""
    return json.dumps(notebook_of(markdown), indent=1, ensure_ascii=False) + "\n"


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    docs = pathlib.Path(__file__).resolve().parent
    source = pathlib.Path(argv[0]) if argv else docs / "tutorial.md"
    target = source.with_suffix(".ipynb")
    target.write_text(render(source.read_text()))
    print(f"wrote {target}")


if __name__ == "__main__":
    main()

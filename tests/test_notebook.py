"""The tutorial as a Jupyter notebook: made from docs/tutorial.md (one source), up to date,
and executed in a real kernel, where nndebug's results show as HTML inline."""
import importlib.util
import json
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs"))
import notebook  # noqa: E402  (docs/notebook.py)

sys.path.remove(str(ROOT / "docs"))


def test_notebook_is_made_from_the_markdown_and_up_to_date():
    made = notebook.render((ROOT / "docs" / "tutorial.md").read_text())
    assert (ROOT / "docs" / "tutorial.ipynb").read_text() == made, \
        "docs/tutorial.ipynb is stale: run `python docs/notebook.py`"


def test_conversion_keeps_code_and_turns_commands_into_calls():
    cells = notebook.cells_of("intro\n\n```python\nx = 1\n```\n\n```shell\nnndebug bugs list\n"
                              "nndebug zoo  # exit code 0\n```\n\n```text\nout\n```\nend\n")
    kinds = [c["cell_type"] for c in cells]
    assert kinds == ["markdown", "code", "code", "markdown", "markdown"]
    assert "".join(cells[2]["source"]).endswith("main(['bugs', 'list'])\nmain(['zoo'])")


@pytest.mark.skipif(importlib.util.find_spec("nbclient") is None or
                    importlib.util.find_spec("ipykernel") is None,
                    reason="needs nbclient and ipykernel (the dev extra)")
def test_the_notebook_runs_in_a_kernel_and_shows_html_findings(tmp_path):
    import nbclient
    import nbformat
    nb = nbformat.reads((ROOT / "docs" / "tutorial.ipynb").read_text(), as_version=4)
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors, errors[:1]
    html = [o["data"]["text/html"] for c in nb.cells if c.cell_type == "code"
            for o in c.get("outputs", []) if "text/html" in o.get("data", {})]
    assert any('class="nd"' in h for h in html), "no nndebug result was shown as HTML"
    json.dumps(nbformat.writes(nb))   # the executed notebook is still valid JSON

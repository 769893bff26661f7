"""The README's "read the code in this order" list stays true and short, and ops stay findable.

Budget (stated in the README): each listed file under PER_FILE lines, all of them
under TOTAL lines. Every listed file must exist and open with a docstring (the
idea first). Every public function of ``minigrad.ops`` and every public Tensor
method is a plain ``def`` under its own name, so ``grep "def mul"`` and "go to
definition" find it.
"""
import ast
import inspect
import pathlib
import re

import minigrad as mg
from minigrad import ops

ROOT = pathlib.Path(__file__).resolve().parent.parent
PER_FILE, TOTAL = 500, 2000
SECTION = "## Read the code in this order"


def reading_list(readme_text):
    """The backticked paths of the numbered items in the README's reading-order section."""
    if SECTION not in readme_text:
        return []
    section = readme_text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\d+\. `([^`]+)`", section, flags=re.M)


def over_budget(paths):
    """Readable complaints: missing files, files over PER_FILE lines, a list over TOTAL."""
    problems, total = [], 0
    for path in paths:
        file = ROOT / path
        if not file.is_file():
            problems.append(f"{path} is on the reading list but does not exist")
            continue
        lines = len(file.read_text().splitlines())
        total += lines
        if lines > PER_FILE:
            problems.append(f"{path} has {lines} lines, over the budget of {PER_FILE}")
    if total > TOTAL:
        problems.append(f"the reading list has {total} lines, over the budget of {TOTAL}")
    return problems


def test_the_readme_lists_about_six_files_within_the_budget():
    paths = reading_list((ROOT / "README.md").read_text())
    assert 5 <= len(paths) <= 8, f"the reading list should name about six files, got {paths}"
    assert not over_budget(paths), over_budget(paths)


def test_every_listed_file_opens_with_its_idea():
    for path in reading_list((ROOT / "README.md").read_text()):
        docstring = ast.get_docstring(ast.parse((ROOT / path).read_text()))
        assert docstring and len(docstring.split()) >= 8, f"{path} does not open with a docstring"


def test_the_budget_check_can_fail(tmp_path):
    assert reading_list("no such section") == []
    listed = reading_list(f"{SECTION}\n\n1. `minigrad/tensor.py` - x\n2. `nope.py` - y\n\n## Next\n"
                          "3. `minigrad/autograd.py` - after the section")
    assert listed == ["minigrad/tensor.py", "nope.py"]
    assert over_budget(listed) == ["nope.py is on the reading list but does not exist"]
    assert any("over the budget" in p for p in over_budget(["minigrad/tensor.py"] * 6))


def test_every_public_op_is_a_plain_def_under_its_own_name():
    for name, fn in vars(ops).items():
        if name.startswith("_") or not inspect.isfunction(fn) or not fn.__module__.startswith("minigrad"):
            continue
        assert fn.__name__ == name, f"minigrad.ops.{name} is an alias of {fn.__name__}"
        source = inspect.getsource(inspect.getmodule(fn))
        assert re.search(rf"^def {name}\(", source, flags=re.M), f"grep finds no 'def {name}('"


def test_every_public_tensor_method_is_a_plain_def_under_its_own_name():
    for name, member in vars(mg.Tensor).items():
        if name.startswith("_") or not inspect.isfunction(member):
            continue
        assert member.__name__ == name, f"Tensor.{name} is an alias of {member.__name__}"

"""Write ``docs/codes.md``: every finding code nndebug can give, one line each.

The checklist (``docs/checklist.md``) teaches the order in which to look; it names the codes
a learner meets first, not all of them. A user who reads ``LOSS_SHAPE_MISMATCH`` in a report,
or a contributor choosing the code that should name a reproduced bug, needs the whole list.
It is built from the code itself, so it cannot fall behind: the rules of the rule graph
(``nndebug.rules.graph.REGISTRY``: each rule declares the codes it produces), then the codes
the probes, gradient checks and monitor give outside the graph (a literal ``code="..."``).
Each line takes its words from the first sentence of the docstring that explains the code:
the rule function's own, else its module's. ``tests/test_codes_page.py`` fails when the page
and the code disagree; run ``python -m tools.codes_page`` to write it again.
"""
import inspect
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "codes.md"
LITERAL_CODE = re.compile(r'code\s*=\s*"([A-Z][A-Z0-9_]{3,})"'                 # code="X"
                          r'|(?:Finding\(\s*|^\s*)"([A-Z][A-Z0-9_]{3,})",\s*'     # Finding("X",
                          r'(?:$|"(?:info|warning|error)")', re.M)                # "warning"
LEADING_CODES = re.compile(r"^(?:[A-Z][A-Z0-9_]+(?:,| and| or|/)?\s*)+(?:\([^)]*\)\s*)?[:-]\s*")
TEST_CODES = {"MY_CODE"}            # codes written in docstrings' examples, not given by nndebug

HEADER = """# Every finding code

What each code nndebug can give means, in one line, and the file that decides it (read its
docstring for the evidence, the thresholds and the public reports behind it). The
[checklist](checklist.md) says in which order to look; this page is the index. Written by
`python -m tools.codes_page` from the code itself (`tests/test_codes_page.py` checks it is up
to date).

Every finding carries its code; look it up below:

```python
import numpy as np
import nndebug as nd

x = np.random.default_rng(0).normal(size=(64, 4)) * 100    # features left in raw units
for finding in nd.check_data(x, np.arange(64) % 2):
    print(finding.code, finding.severity)                   # NOT_NORMALIZED warning
```

| code | what it means | decided in |
|---|---|---|
"""


def first_sentence(text):
    """The first sentence of a docstring's first paragraph, without the codes it opens with."""
    paragraph = " ".join((text or "").strip().split("\n\n")[0].split())
    paragraph = LEADING_CODES.sub("", paragraph, count=1)
    match = re.match(r"(.+?[.!?])(\s|$)", paragraph)
    sentence = match.group(1) if match else paragraph
    return sentence[:1].upper() + sentence[1:]


def said_of(code, source):
    """What the source's docstrings or comments say right after naming ``code`` ("CODE: ...",
    "CODE - ...", "CODE for ..."), as one sentence; None when they never do."""
    match = re.search(re.escape(code) + r"(?::| -| for)\s+([^\n]+(?:\n\s*(?:#\s*)?[^\n\s#\"][^\n]*)*)",
                      source)
    if not match:
        return None
    return first_sentence(match.group(1).split('"""')[0].replace("#", " "))


def meaning_of(code, function, module):
    """The function's own docstring, else what the module says of the code by name, else the
    module docstring's first sentence."""
    own = inspect.getdoc(function)
    if own:       # a rule of several codes says each by name: "CODE_A: ...; CODE_B: ..."
        return said_of(code, own) or first_sentence(own)
    return said_of(code, inspect.getsource(module)) or first_sentence(inspect.getdoc(module))


def graph_codes():
    """{code: (meaning, file)} of the codes the rule graph's rules produce."""
    import nndebug.rules  # noqa: F401  (registers every rule)
    from nndebug.rules.graph import REGISTRY
    found = {}
    for rule in REGISTRY:
        module = inspect.getmodule(rule.function)
        where = pathlib.Path(inspect.getsourcefile(module)).relative_to(ROOT).as_posix()
        for code in rule.produces:
            if code not in found:
                found[code] = (meaning_of(code, rule.function, module), where)
    return found


def literal_codes(known):
    """{code: (meaning, file)} of the codes given outside the graph (probes, gradient
    checks, the monitor), read as literal codes in the package's other files; of the files
    that give one code, the first that says what it means by name, else the first."""
    found, said = {}, set()
    for path in sorted((ROOT / "nndebug").rglob("*.py")):
        if "rules" in path.relative_to(ROOT / "nndebug").parts[:1]:
            continue
        source = path.read_text(encoding="utf-8")
        for code in (keyword or positional for keyword, positional
                     in LITERAL_CODE.findall(source)):
            if code in known or code in said or code in TEST_CODES:
                continue
            meaning = said_of(code, source)
            if meaning:
                said.add(code)
            elif code in found:
                continue
            else:
                docstring = re.match(r'\s*(?:#[^\n]*\n\s*)*"""(.*?)"""', source, re.S)
                meaning = first_sentence(docstring.group(1) if docstring else "")
            found[code] = (meaning, path.relative_to(ROOT).as_posix())
    return found


def page():
    codes = graph_codes()
    codes.update(literal_codes(codes))
    rows = [f"| `{code}` | {meaning.replace('|', '/')} | `{where}` |"
            for code, (meaning, where) in sorted(codes.items())]
    return HEADER + "\n".join(rows) + "\n"


if __name__ == "__main__":
    PAGE.write_text(page(), encoding="utf-8")
    print(f"wrote {PAGE.relative_to(ROOT)}")

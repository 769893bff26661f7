"""docs/codes.md lists every finding code nndebug can give (tools/codes_page.py writes it from
the code): a new rule, probe or monitor code fails here until the page is written again with
``python -m tools.codes_page``, and every code the checklist names is on it."""
import re

from tools import codes_page


def test_the_page_is_up_to_date():
    assert codes_page.PAGE.read_text(encoding="utf-8") == codes_page.page(), \
        "docs/codes.md is out of date: run python -m tools.codes_page"


def test_every_code_the_rule_graph_produces_is_listed_with_a_meaning():
    import nndebug.rules  # noqa: F401
    from nndebug.rules.graph import REGISTRY
    rows = dict(re.findall(r"^\| `([A-Z0-9_]+)` \| (.+?) \|", codes_page.page(), re.M))
    produced = {code for rule in REGISTRY for code in rule.produces}
    assert produced <= set(rows)
    assert all(len(rows[code]) >= 20 for code in produced), \
        [code for code in produced if len(rows[code]) < 20]


def test_the_codes_the_checklist_names_are_real():
    checklist = (codes_page.ROOT / "docs" / "checklist.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `([A-Z0-9_]+)`", codes_page.page(), re.M))
    named = set(re.findall(r"\b[A-Z][A-Z0-9]+(?:_[A-Z0-9]+)+\b", checklist))
    assert named - listed <= {"MY_CODE"} | _not_codes(checklist), sorted(named - listed)


def _not_codes(text):
    """Upper-case words of the checklist that are settings or names, not finding codes."""
    return {word for word in re.findall(r"\b[A-Z][A-Z0-9]+(?:_[A-Z0-9]+)+\b", text)
            if word.startswith(("CUDA_", "OMP_", "PYTHON", "TORCH_", "NNDEBUG_"))}


def test_a_sentence_is_read_without_the_codes_it_opens_with():
    assert codes_page.first_sentence("NAN_LOSS: the loss became NaN. More.") == \
        "The loss became NaN."
    assert codes_page.first_sentence("GRADIENTS_ACCUMULATING and GRADIENTS_DISCARDED - the "
                                     "gradients are wrong.") == "The gradients are wrong."
    assert codes_page.said_of("B_CODE", "A_CODE: one thing.\nB_CODE: another thing. x") == \
        "Another thing."

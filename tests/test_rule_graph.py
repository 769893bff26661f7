"""The rules as a declared graph: the declarations are complete and consistent, the derived
run order and cause ranking follow them, and the checker itself fails on broken graphs.

The checker is tested on small fake graphs first (so we know it *can* fail), then run on
the real rules.
"""
import ast
import inspect
import textwrap

import numpy as np
import pytest

from nndebug import rules
from nndebug.findings import Finding
from nndebug.records import RunRecord
from nndebug.rules import graph
from nndebug.rules.graph import GraphError, make_rule


def fake(name, produces, reads=(), explains=(), index=0):
    def function(ctx):
        return None
    function.__name__ = name
    return make_rule(function, produces=produces, reads=reads, explains=explains, index=index)


# --- the checker on fake graphs ------------------------------------------------------------------
def test_a_read_that_no_rule_produces_is_refused():
    a = fake("a", "A", reads={"NOBODY_MAKES_THIS"})
    with pytest.raises(GraphError, match="a reads NOBODY_MAKES_THIS, which no rule produces"):
        graph.run_order([a])


def test_a_cycle_is_refused_and_named():
    a = fake("a", "A", reads={"B"}, index=0)
    b = fake("b", "B", reads={"C"}, index=1)
    c = fake("c", "C", reads={"A"}, index=2)
    d = fake("d", "D", index=3)
    with pytest.raises(GraphError, match="cycle") as caught:
        graph.run_order([a, b, c, d])
    text = str(caught.value)
    assert all(name in text for name in ("test_rule_graph.a", "test_rule_graph.b",
                                         "test_rule_graph.c"))
    assert "test_rule_graph.d" not in text


def test_a_code_produced_twice_is_refused():
    with pytest.raises(GraphError, match="X is produced by both"):
        graph.run_order([fake("a", "X"), fake("b", "X", index=1)])


def test_explaining_a_code_no_rule_produces_is_refused():
    with pytest.raises(GraphError, match="explains GHOST"):
        graph.explains_table([fake("a", "A", explains={"GHOST"})])


def test_explains_must_name_the_code_for_a_rule_with_several_codes():
    with pytest.raises(GraphError, match="dict"):
        fake("a", ("A", "B"), explains={"C"})


def test_codes_given_as_a_set_are_ordered_the_same_in_every_run():
    assert fake("a", {"B_CODE", "A_CODE", "C_CODE"}).produces == ("A_CODE", "B_CODE", "C_CODE")
    assert fake("a", ("B_CODE", "A_CODE")).produces == ("B_CODE", "A_CODE")


def test_run_order_puts_readers_after_producers_and_keeps_registration_order_otherwise():
    a = fake("a", "A", reads={"C"}, index=0)
    b = fake("b", "B", index=1)
    c = fake("c", "C", index=2)
    d = fake("d", "D", index=3)
    assert [r.name.split(".")[-1] for r in graph.run_order([a, b, c, d])] == ["b", "c", "a", "d"]


def test_cause_order_puts_causes_first_and_leaves_mutual_pairs_to_registration_order():
    sym = fake("sym", "SYMPTOM", index=0)
    cause = fake("cause", "CAUSE", explains={"SYMPTOM"}, index=1)
    first = fake("first", "FIRST", explains={"SECOND"}, index=2)
    second = fake("second", "SECOND", explains={"FIRST"}, index=3)
    assert graph.cause_order([sym, cause, first, second]) == ["CAUSE", "SYMPTOM", "FIRST",
                                                              "SECOND"]
    loop = [fake("a", "A", explains={"B"}), fake("b", "B", explains={"C"}, index=1),
            fake("c", "C", explains={"A"}, index=2)]
    with pytest.raises(GraphError, match="cycle"):
        graph.cause_order(loop)


def test_a_rule_sees_only_the_codes_it_declared():
    reader = fake("reader", "R", reads={"A"})
    found = {"A": Finding(code="A", severity="info"), "B": Finding(code="B", severity="info")}
    view = graph.FoundView(found, reader)
    assert "A" in view and view["A"].code == "A" and list(view) == ["A"]
    with pytest.raises(GraphError, match="reader looks up B in ctx.found but does not declare"):
        "B" in view
    with pytest.raises(GraphError):
        view.get("B")
    with pytest.raises(GraphError, match="returned a B finding"):
        graph.check_produced(reader, Finding(code="B", severity="info"))


def test_diagnose_refuses_a_rule_that_breaks_its_declaration(monkeypatch):
    def sneaky(ctx):
        return None if "LOSS_PLATEAU" in ctx.found else None
    liar = make_rule(sneaky, produces="SNEAKY")
    monkeypatch.setattr(rules, "RULES", rules.RULES + [liar])
    with pytest.raises(GraphError, match="sneaky looks up LOSS_PLATEAU"):
        rules.diagnose(RunRecord(loss_steps=[0, 1], losses=[1.0, 1.0]))


# --- the real rules ---------------------------------------------------------------------------------
def test_the_real_rules_form_a_graph_and_run_in_an_order_that_respects_it():
    produced_before = set()
    for rule in rules.RULES:
        assert rule.reads <= produced_before, (rule.name, rule.reads - produced_before)
        produced_before |= set(rule.produces)


def test_every_rule_file_is_imported_by_the_package():
    # a file with @rule functions that __init__ does not import would never run
    import pathlib
    folder = pathlib.Path(rules.__file__).parent
    wired = inspect.getsource(rules)
    for path in sorted(folder.glob("*.py")):
        if "\n@rule(" in path.read_text():
            assert f"from . import {path.stem}" in wired, \
                f"{path.name} declares rules but nndebug/rules/__init__.py does not import it"


def test_the_cause_ranking_covers_every_code_once_and_ranks_causes_before_symptoms():
    codes = [code for rule in rules.RULES for code in rule.produces]
    assert sorted(rules.CAUSE_ORDER) == sorted(codes) and len(set(codes)) == len(codes)
    rank = {code: i for i, code in enumerate(rules.CAUSE_ORDER)}
    for cause, symptoms in rules.EXPLAINS.items():
        for symptom in symptoms:
            if cause not in rules.EXPLAINS.get(symptom, ()):      # not a mutual pair
                assert rank[cause] < rank[symptom], (cause, symptom)
    # the ranking the rules were written for: data, set-up, learning rate, blow-ups,
    # signal flow, the loss curve
    assert rules.CAUSE_ORDER[:3] == ["NAN_IN_INPUTS", "CONSTANT_INPUTS", "UNNORMALIZED_INPUTS"]
    assert rules.CAUSE_ORDER[-5:] == ["LOSS_DIVERGING", "LOSS_AT_CHANCE", "LOSS_OSCILLATING",
                                      "LOSS_PLATEAU", "OVERFITTING"]


def _found_lookups(function):
    """The string codes a rule's source looks up in ctx.found (in / [] / .get)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    codes = set()

    def is_found(node):
        return isinstance(node, ast.Attribute) and node.attr == "found"
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(is_found(c) for c in node.comparators) and \
                isinstance(node.left, ast.Constant):
            codes.add(node.left.value)
        if isinstance(node, ast.Subscript) and is_found(node.value) and \
                isinstance(node.slice, ast.Constant):
            codes.add(node.slice.value)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "get" and is_found(node.func.value) and node.args and \
                isinstance(node.args[0], ast.Constant):
            codes.add(node.args[0].value)
    return codes


def test_every_literal_look_up_in_the_source_is_declared():
    checked = 0
    for rule in graph.REGISTRY:
        lookups = _found_lookups(rule.function)
        assert lookups <= rule.reads, (rule.name, lookups - rule.reads)
        checked += bool(lookups)
    assert checked >= 6      # the scan finds look-ups at all
    assert _found_lookups(lambda ctx: "X" in ctx.found or ctx.found.get("Y")) == {"X", "Y"}


def test_every_rule_file_imports_no_other_rule_file():
    # registration order (the tie-break) is import order: a rule file importing another
    # would register that one early
    rule_files = {rule.function.__module__ for rule in graph.REGISTRY}
    for name in rule_files:
        source = inspect.getsource(__import__(name, fromlist=["_"]))
        for other in rule_files - {name}:
            short = other.rsplit(".", 1)[-1]
            assert f"from .{short} import" not in source and f"import {short}" not in source, \
                (name, other)


def test_learning_poor_reads_the_curve_not_findings():
    from nndebug.rules.context import Context
    from nndebug.rules.curve import learning_poor
    run = RunRecord(loss_steps=list(range(60)), losses=list(np.full(60, 1.0)))
    ctx = Context(run)
    ctx.found = None      # any look-up would fail
    assert learning_poor(ctx)


# --- no rule crashes on few records or missing statistics ----------------------------------------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from nndebug.records import LayerInfo, ParamInfo, StepRecord  # noqa: E402

VALUES = [0.0, 1e-9, 1e-3, 0.5, 1.0, 2.3, 1e4, float("nan"), float("inf")]
KINDS = {"relu": "ReLU", "tanh": "Tanh", "sigmoid": "Sigmoid", "softmax": "Softmax",
         "other": "Linear"}


def _maybe_array(draw, width, kind=float):
    """None, an array of the right width, or (rarely) one of the wrong width."""
    form = draw(st.sampled_from(["none", "right", "right", "wrong"]))
    if form == "none":
        return None
    n = width if form == "right" else width + 1
    if kind is bool:
        return np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), bool)
    return np.array(draw(st.lists(st.sampled_from(VALUES), min_size=n, max_size=n)), float)


def _stats(draw, keys):
    return {k: draw(st.sampled_from(VALUES)) for k in draw(st.lists(st.sampled_from(keys),
                                                                    unique=True))}


@st.composite
def small_runs(draw):
    """Runs with 0-3 records, any statistic missing or odd, 0-40 losses (NaN allowed)."""
    width = draw(st.integers(0, 3))
    run = RunRecord(framework="test", has_optimizer=draw(st.booleans()))
    run.params = [ParamInfo(f"{i}.weight", draw(st.sampled_from([(3, 3), (3,)])), True,
                            draw(st.sampled_from([True, False, None]))) for i in range(width)]
    kinds = draw(st.lists(st.sampled_from(sorted(KINDS)), max_size=3))
    run.layers = [LayerInfo(str(i), KINDS[k], k) for i, k in enumerate(kinds)]
    pattern = draw(st.sampled_from(["flat", "falling", "rising", "chance", "random"]))
    n = draw(st.sampled_from([0, 1, 2, 3, 31, 40]))
    base = {"flat": np.full(n, 1.0), "falling": np.linspace(2.3, 0.1, n),
            "rising": np.linspace(0.5, 50.0, n), "chance": np.full(n, np.log(3.0)),
            "random": np.array(draw(st.lists(st.sampled_from(VALUES), min_size=n, max_size=n)))
            }[pattern]
    run.loss_steps, run.losses, run.n_steps = list(range(n)), [float(v) for v in base], n
    if draw(st.booleans()):
        k = draw(st.integers(0, 8))
        run.val_steps = list(range(k))
        run.val_losses = draw(st.lists(st.sampled_from(VALUES), min_size=k, max_size=k))
    steps = sorted(draw(st.lists(st.integers(0, max(n, 1)), max_size=3, unique=True)))
    for step in steps:
        r = StepRecord(step=step, backward=draw(st.booleans()),
                       lrs=draw(st.lists(st.sampled_from([0.0, 1e-6, 0.1]), max_size=2)))
        for name in ("grad_norm", "held_norm", "held_excess", "param_norm", "update_norm"):
            setattr(r, name, _maybe_array(draw, width))
        r.grad_received = _maybe_array(draw, width, bool)
        for layer in run.layers:
            if draw(st.booleans()):
                r.activations[layer.name] = _stats(draw, ["mean", "std", "dead", "saturated",
                                                          "batch_spread", "unit_spread"])
            if layer.kind == "relu" and draw(st.booleans()):
                r.dead_units[layer.name] = np.array(
                    draw(st.lists(st.booleans(), min_size=0, max_size=4)), bool)
        r.inputs = _stats(draw, ["mean", "std", "batch", "constant_features"])
        shape = draw(st.sampled_from([None, (0, 3), (2, 3), (2, 1), (4,)]))
        if shape is not None:
            r.output = np.full(shape, draw(st.sampled_from(VALUES)))
        r.eval_layers = draw(st.sampled_from([[], ["0"]]))
        run.records.append(r)
    return run


@settings(max_examples=300, deadline=None)
@given(run=small_runs())
def test_no_rule_crashes_on_few_records_or_missing_statistics(run):
    findings = rules.diagnose(run)
    assert all(f.code in rules.CAUSE_ORDER for f in findings)
    assert all(isinstance(f.to_dict(), dict) for f in findings)


def test_no_records_at_all_after_a_failed_measurement():
    # #11: a monitor that stopped recording left ratios uncut and lr_too_low raised IndexError
    run = RunRecord(framework="test", has_optimizer=True)
    run.params = [ParamInfo("0.weight", (4, 4), True, True), ParamInfo("0.bias", (4,), True, True)]
    run.loss_steps, run.losses, run.n_steps = list(range(60)), [1.0] * 60, 60
    assert {f.code for f in rules.diagnose(run)} == {"LOSS_PLATEAU"}


# --- imports run one way: records -> rules -> findings -> reports ---------------------------------
LOWER_MODULES = ["nndebug/plain.py", "nndebug/findings.py", "nndebug/records.py"]
UPPER_PACKAGES = ("nndebug.report", "nndebug.monitor", "nndebug.adapters", "nndebug.probes",
                  "nndebug.commands", "nndebug.cli", "torch")


def _imported_modules(path, package):
    """Absolute names of everything a source file imports (relative imports resolved)."""
    tree = ast.parse(open(path).read())
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[: len(base) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module
            out += [name] + [f"{name}.{alias.name}" for alias in node.names]
    return out


def test_records_rules_and_findings_import_nothing_that_reports_on_them():
    import pathlib
    root = pathlib.Path(rules.__file__).parents[2]
    files = [(root / p, "nndebug") for p in LOWER_MODULES] + \
        [(p, "nndebug.rules") for p in sorted((root / "nndebug" / "rules").glob("*.py"))]
    assert len(files) > 10
    for path, package in files:
        for name in _imported_modules(path, package):
            assert not name.startswith(UPPER_PACKAGES), (
                f"{path.relative_to(root)} imports {name}: the flow is records -> rules -> "
                "findings -> reports, and nothing may import what reports on it")


def test_the_import_scanner_resolves_relative_imports(tmp_path):
    path = tmp_path / "some_rule.py"
    path.write_text("import numpy as np\nfrom ..report.json import plain\nfrom . import graph\n")
    names = _imported_modules(path, "nndebug.rules")
    assert "nndebug.report.json" in names and "nndebug.rules.graph" in names
    assert any(n.startswith(UPPER_PACKAGES) for n in names)


def test_rules_build_findings_with_keyword_arguments():
    # Finding(code=..., severity=..., ...) reads without counting positions
    import pathlib
    calls = 0
    for path in sorted(pathlib.Path(rules.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Finding":
                calls += 1
                assert not node.args, f"{path.name}:{node.lineno} builds a Finding positionally"
    assert calls >= 24

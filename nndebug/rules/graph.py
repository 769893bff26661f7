"""The rules as a declared graph: what each rule reads, what it may produce, what it explains.

A rule is a plain function ``rule_fn(ctx) -> Finding | [Finding, ...] | None``, declared
where it is defined with the ``@rule`` decorator::

    @rule(produces="LR_TOO_LOW", reads={"PARAMS_NOT_UPDATING"},
          explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE"})
    def lr_too_low(ctx): ...

- ``produces``: every code the rule may return (one code, or several).
- ``reads``: every code the rule looks up in ``ctx.found`` (what other rules found).
  ``diagnose`` hands each rule a view of ``ctx.found`` that refuses any other code, and
  refuses findings whose code the rule did not declare, so a declaration cannot drift
  away from the code it describes.
- ``explains``: the symptoms a produced code explains when both are found (the cause then
  inherits their severity; ``link_causes``). A set for a one-code rule, or a dict
  ``{code: {symptom, ...}}`` for a rule that produces several codes.

Everything else is derived from these declarations, never written down a second time:

- ``run_order``: a rule runs after every rule that produces a code it reads. Among the
  rules free to run, the one registered first runs first: family files in the order
  ``rules/__init__.py`` imports them, then the order of definition inside a file.
- ``cause_order``: the codes ranked causes first. A code comes after every code that
  explains it; ties are broken by the same registration order (so the family files are
  imported in cause order: inputs, set-up, learning rate, blow-ups, signal flow, loss
  curve). Two codes that explain each other (NAN_LOSS and NAN_GRADIENTS) are left unranked
  by that pair: ``link_causes`` decides by step which one came first.
- ``explains_table``: ``{cause: {symptoms}}`` for ``link_causes``.

Each derivation raises ``GraphError`` naming the rule when the declarations do not make a
graph: a read that no rule produces, a cycle, a code produced by two rules, an explained
symptom that no rule produces. ``tests/test_rule_graph.py`` runs these checks on the real
rules and on small fake graphs that must fail.
"""
import heapq
from collections.abc import Mapping
from dataclasses import dataclass, field


class GraphError(Exception):
    """The rules' declarations do not form a graph that can be run (a bug in a rule file)."""


@dataclass(eq=False)
class Rule:
    name: str                 # "module.function", e.g. "loss_curve.loss_plateau"
    function: object
    produces: tuple           # codes, in the order they were declared
    reads: frozenset
    explains: dict = field(default_factory=dict)   # produced code -> frozenset of symptoms
    index: int = 0            # registration order: the tie-break of both orders

    def __call__(self, ctx):
        return self.function(ctx)


REGISTRY = []                 # every rule, in registration order


def make_rule(function, *, produces, reads=(), explains=(), index=0):
    """The ``Rule`` for ``function`` with these declarations (not registered)."""
    # a set has no order of its own (it changes with the hash seed): sort it, so that the
    # derived orders are the same in every run
    produced = (produces,) if isinstance(produces, str) else \
        tuple(sorted(produces)) if isinstance(produces, (set, frozenset)) else tuple(produces)
    if isinstance(explains, dict):
        table = {code: frozenset(symptoms) for code, symptoms in explains.items()}
    elif explains:
        if len(produced) != 1:
            raise GraphError(f"a rule producing {produced} must give explains as a dict "
                             "{code: {symptoms}}")
        table = {produced[0]: frozenset(explains)}
    else:
        table = {}
    module = function.__module__.rsplit(".", 1)[-1]
    return Rule(f"{module}.{function.__name__}", function, produced, frozenset(reads), table,
                index)


def rule(*, produces, reads=(), explains=()):
    """Register the decorated function as a rule (see the module docstring)."""
    def register(function):
        declared = make_rule(function, produces=produces, reads=reads, explains=explains,
                             index=len(REGISTRY))
        REGISTRY.append(declared)
        function.rule = declared
        return function
    return register


class FoundView(Mapping):
    """``ctx.found`` as one rule sees it: only the codes it declared in ``reads``."""

    def __init__(self, found, reader):
        self._found, self._reader = found, reader

    def _allowed(self, code):
        if code not in self._reader.reads:
            raise GraphError(f"{self._reader.name} looks up {code} in ctx.found but does not "
                             f"declare it; add it to reads= in its @rule(...)")
        return code

    def __getitem__(self, code):
        return self._found[self._allowed(code)]

    def __contains__(self, code):
        return self._allowed(code) in self._found

    def __iter__(self):
        return (code for code in self._found if code in self._reader.reads)

    def __len__(self):
        return sum(1 for _ in self)


def check_produced(reader, finding):
    """A rule returned a finding: its code must be one the rule declared."""
    if finding.code not in reader.produces:
        raise GraphError(f"{reader.name} returned a {finding.code} finding but declares "
                         f"produces={reader.produces}; add the code to its @rule(...)")


def producers(rules):
    """{code: the rule that produces it}; a code produced by two rules is an error."""
    out = {}
    for r in rules:
        for code in r.produces:
            if code in out:
                raise GraphError(f"{code} is produced by both {out[code].name} and {r.name}; "
                                 "each code must come from one rule")
            out[code] = r
        for code in r.explains:
            if code not in r.produces:
                raise GraphError(f"{r.name} declares what {code} explains but does not "
                                 f"produce {code} (produces={r.produces})")
    return out


def run_order(rules):
    """The rules in an order where each runs after the rules whose codes it reads."""
    made_by = producers(rules)
    before = {}
    for r in rules:
        unknown = sorted(r.reads - made_by.keys())
        if unknown:
            raise GraphError(f"{r.name} reads {', '.join(unknown)}, which no rule produces; "
                             "fix the code, or add the rule that produces it")
        before[r] = {made_by[code] for code in r.reads} - {r}
    return _topological(list(rules), before, rank=lambda r: r.index, name=lambda r: r.name)


def explains_table(rules):
    """{cause: frozenset of symptoms} from the declarations; every symptom must be produced."""
    made_by = producers(rules)
    table = {}
    for r in rules:
        for code, symptoms in r.explains.items():
            unknown = sorted(symptoms - made_by.keys())
            if unknown:
                raise GraphError(f"{r.name} says {code} explains {', '.join(unknown)}, which no "
                                 "rule produces")
            table[code] = symptoms
    return table


def cause_order(rules):
    """Every produced code, causes before the symptoms they explain."""
    table = explains_table(rules)
    codes = [code for r in sorted(rules, key=lambda r: r.index) for code in r.produces]
    position = {code: i for i, code in enumerate(codes)}
    before = {code: set() for code in codes}
    for cause, symptoms in table.items():
        for symptom in symptoms:
            mutual = cause in table.get(symptom, ())
            if symptom != cause and not mutual:
                before[symptom].add(cause)
    return _topological(codes, before, rank=position.get, name=str)


def _topological(items, before, rank, name):
    """Kahn's algorithm: each item after everything in ``before[item]``; among the items
    free to go, the one with the lowest ``rank`` goes first. Raises GraphError on a cycle."""
    waiting = {item: set(before[item]) for item in items}
    after = {item: [] for item in items}
    for item, needs in waiting.items():
        for need in needs:
            after[need].append(item)
    ready = [(rank(item), i, item) for i, item in enumerate(items) if not waiting[item]]
    heapq.heapify(ready)
    order = []
    while ready:
        _, _, item = heapq.heappop(ready)
        order.append(item)
        for later in after[item]:
            waiting[later].discard(item)
            if not waiting[later]:
                heapq.heappush(ready, (rank(later), items.index(later), later))
    if len(order) < len(items):
        stuck = [item for item in items if waiting[item]]
        raise GraphError("the rules' declarations form a cycle: " +
                         _describe_cycle(stuck, waiting, name))
    return order


def _describe_cycle(stuck, waiting, name):
    """One cycle among the items that could not be ordered, as 'a -> b -> a'."""
    path, node = [], stuck[0]
    while node not in path:
        path.append(node)
        node = next(iter(sorted(waiting[node], key=name)))
    loop = path[path.index(node):] + [node]
    return " needs ".join(name(item) for item in loop)

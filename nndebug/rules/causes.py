"""Link each symptom to the cause that explains it, and order the findings causes first.

Causes outrank symptoms: data and set-up bugs first, then hyper-parameters, then what they
do to activations and gradients, then the loss curve. A cause takes the severity of the
worst symptom it explains ("the LR is too high" is an error when it made the loss NaN), and
the symptom's evidence names its likely cause. The ranking and the "explains" table are
derived from the rules' declarations (``graph.cause_order``, ``graph.explains_table``).
"""
from ..findings import SEVERITY_ORDER


def link_causes(findings, cause_order, explains):
    """Link each symptom to its cause and return the findings grouped by root cause.

    Each finding's cause is the highest-ranked other finding (``cause_order``) that
    ``explains`` it - or the one a rule named itself (``evidence["likely_cause"]``); among
    NaN findings the earlier one is the cause. A root cause takes the worst severity of
    everything it explains. Findings come out grouped by root cause (best-ranked root
    first), each cause before its symptoms; ``sort_findings`` then orders them by severity,
    stably.
    """
    rank = {code: i for i, code in enumerate(cause_order)}
    present = {}
    for f in findings:
        present.setdefault(f.code, f)
    parent, named_by_rule = {}, set()
    for f in findings:
        named = f.evidence.get("likely_cause")
        if named in present and named != f.code:
            parent[f.code] = named
            named_by_rule.add(f.code)
            continue
        for cause in cause_order:
            c = present.get(cause)
            if c is None or c is f or f.code not in explains.get(cause, ()):
                continue
            if cause in explains.get(f.code, ()) and _step_key(c) > _step_key(f):
                continue    # two codes that explain each other: the earlier one is the cause
            parent[f.code] = cause
            break
    _break_cycles(parent, named_by_rule, rank)

    def root_of(code):
        depth = 0
        while code in parent:
            code, depth = parent[code], depth + 1
        return code, depth

    for f in findings:
        if f.code in parent and f is present[f.code]:
            f.evidence["likely_cause"] = parent[f.code]
            root = present[root_of(f.code)[0]]
            if SEVERITY_ORDER[f.severity] < SEVERITY_ORDER[root.severity]:
                root.severity = f.severity

    def key(f):
        root, depth = root_of(f.code)
        return (rank.get(root, len(rank)), depth, _step_key(f))
    return sorted(findings, key=key)


def _break_cycles(parent, named_by_rule, rank):
    """Break cycles (a pair naming each other): a link a rule named itself wins, else the
    link to the better-ranked cause."""
    for code in list(parent):
        seen, node = [code], parent.get(code)
        while node is not None and node not in seen:
            seen.append(node)
            node = parent.get(node)
        if node is not None:    # a cycle through `node`
            loop = seen[seen.index(node):]
            worst_link = max(loop, key=lambda c: (c not in named_by_rule,
                                                  rank.get(parent[c], len(rank))))
            del parent[worst_link]


def _step_key(f):
    return f.step if f.step is not None else 10 ** 12

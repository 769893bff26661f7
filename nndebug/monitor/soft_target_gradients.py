"""Soft targets that carry a gradient (``run.observed.soft_target_gradients``;
TEACHER_UPDATED_BY_OPTIMIZER and CONSISTENCY_TARGET_NOT_DETACHED,
``nndebug.rules.soft_target_gradients``).

A distillation or consistency loss compares a prediction's log-probabilities with a target
distribution: ``F.kl_div(log_softmax(s), softmax(t))``, ``F.cross_entropy(s, softmax(t))``
or by hand ``-(softmax(t) * log_softmax(s)).sum(1)``. All three leave the same node in the
loss's graph, a product of a softmax and a log-softmax (``MulBackward0``). The target is
meant as a constant: a teacher's answer, or the model's own answer on another view, taken
under ``torch.no_grad()`` or ``.detach()``-ed. When it is not, the product's softmax side
takes a gradient too, and the loss trains whatever computed the target:

- a teacher whose parameters the optimizer holds (built over student and teacher) is pulled
  towards the student (huangzongmou/yolov8_Distillation#16);
- the watched model's own forward on the other view is pulled towards the prediction, and
  through -p log q its target towards the prediction's top class: the term rewards being
  confidently wrong as much as being right (AlanChou/Deep-Co-Training...#1).

An entropy term ``-(p * log p)`` has the same node, with both sides computed from ONE
forward's scores: a product whose two sides meet within a few nodes is left out. A
symmetric KL between two dropout draws (R-Drop) keeps both gradients on purpose and writes
the comparison both ways, and ``F.kl_div`` adds the target's own entropy, p log p (an
``xlogy`` of the target with itself), which pays nothing for a confident target (TRADES keeps
the clean prediction's graph on purpose): both forms are marked.

What is read: the nodes of the shared walk of the loss's graph (``graph_walks.LossGraph``)
on the first ``STEPS_READ`` recorded steps; for each such product whose softmax side has a
graph, that side is walked down (at most ``TARGET_WALK_LIMIT`` nodes) to the parameters it
reaches (``AccumulateGrad`` nodes), counted as the watched model's, others', and others
that the watched optimizer holds. Python objects only: no device work, no transfer.
Cost: nothing past the first recorded steps; on them, a type test per loss-graph node and a
walk of a target's graph where one carries a gradient.
"""
from .graph_walks import FirstStepsReader, nodes_under

STEPS_READ = 3               # [design] recorded steps whose loss graph is read: a loss's
                             # structure is the same on every step of a loop
SOURCE_DEPTH = 4             # [design] nodes walked below each side of the product to find
                             # one forward's scores shared by both (an entropy term): a
                             # division by a temperature and a view at most in the loops seen
TARGET_WALK_LIMIT = 4096     # [design] nodes of a target's graph walked at most (a 12-layer
                             # teacher's forward is ~1,500)
PROBABILITY_NODES = {"SoftmaxBackward0"}
LOG_PROBABILITY_NODES = {"LogSoftmaxBackward0"}
XLOGY_NODES = {"XlogyBackward0"}


class SoftTargetGradients(FirstStepsReader):
    """A reader of ``graph_walks.LossGraph``: keeps (step, the watched model's parameter
    tensors a soft target's graph reaches, other parameter tensors it reaches, of which the
    watched optimizer holds, 1 where the same loss also compares the other way round - the
    prediction's scores as a target of the target's: a symmetric KL as R-Drop writes it - or
    subtracts the target's own entropy: a KL divergence)
    for each product of a softmax with a graph and a log-softmax of other scores."""
    steps = STEPS_READ

    def __init__(self, observed, parameters, optimizer):
        super().__init__(observed)
        self._watched = {id(p) for p in parameters}
        self._optimizer = optimizer

    def keep(self, step, nodes):
        found = []                           # [(target node, its sources, prediction's)]
        for node in nodes:
            if type(node).__name__ != "MulBackward0":
                continue
            parents = [parent for parent, _ in getattr(node, "next_functions", ())]
            if len(parents) != 2 or any(parent is None for parent in parents):
                continue
            kinds = [type(parent).__name__ for parent in parents]
            if kinds[0] in PROBABILITY_NODES and kinds[1] in LOG_PROBABILITY_NODES:
                target, prediction = parents
            elif kinds[1] in PROBABILITY_NODES and kinds[0] in LOG_PROBABILITY_NODES:
                prediction, target = parents
            else:
                continue
            sources, predicted = _near_nodes(target), _near_nodes(prediction)
            if sources & predicted:
                continue                     # one forward's scores: an entropy term
            found.append((target, sources, predicted))
        if not found:
            return
        held = self._held()
        divergences = _own_entropy_terms(nodes)
        for target, sources, predicted in found:
            mirrored = any(other_sources & predicted and other_predicted & sources
                           for _, other_sources, other_predicted in found) or \
                target in divergences
            model = other = other_held = 0
            for leaf in nodes_under([target], TARGET_WALK_LIMIT):
                variable = getattr(leaf, "variable", None)
                if variable is None:
                    continue
                if id(variable) in self._watched:
                    model += 1
                else:
                    other += 1
                    other_held += int(id(variable) in held)
            self.observed.soft_target_gradients.append(
                (int(step), model, other, other_held, int(mirrored)))

    def _held(self):
        groups = getattr(self._optimizer, "param_groups", None) or []
        return {id(p) for group in groups for p in group.get("params", ())}


def _own_entropy_terms(nodes):
    """The nodes whose values meet themselves in an ``xlogy(p, p)``: the target's own
    entropy term, p log p, which ``F.kl_div`` adds to -p log q. With it the term is a
    divergence, KL(p || q): its gradient on p, log p - log q + 1, pulls the target towards
    the prediction and pays nothing for confidence, and keeping it is a choice (TRADES'
    robust term, real-bug batch 196: its healthy twin keeps the clean prediction's graph as
    the paper does). A soft cross-entropy, -p log q alone, rewards a confident p."""
    found = set()
    for node in nodes:
        if type(node).__name__ not in XLOGY_NODES:
            continue
        parents = [parent for parent, _ in getattr(node, "next_functions", ())]
        if len(parents) == 2 and parents[0] is not None and parents[0] is parents[1]:
            found.add(parents[0])
    return found


def _near_nodes(root):
    """The graph nodes within SOURCE_DEPTH steps below ``root``, parameters' leaf nodes left
    out (two forwards of one model share those, not their scores)."""
    found, frontier = set(), [root]
    for _ in range(SOURCE_DEPTH):
        below = []
        for node in frontier:
            if getattr(node, "variable", None) is not None:
                continue
            found.add(node)
            below += [child for child, _ in node.next_functions if child is not None]
        frontier = below
    return found

"""Hinges in the loss, and whether it compares normalised vectors
(``run.observed.loss_hinges``; MARGIN_OUTSIDE_SIMILARITY_RANGE, ``rules/hinge_margins.py``).

A margin loss written for a distance and fed a cosine similarity - pytorch-metric-
learning's ``ContrastiveLoss(distance=CosineSimilarity())`` left at ``pos_margin=0,
neg_margin=1`` (KevinMusgrave/pytorch-metric-learning#504) - has hinges ``relu(0 - sim)``
and ``relu(sim - 1)`` that an untrained model already satisfies: a cosine never exceeds 1.
The loss is exactly 0 from the first step and nothing trains. What the rule needs from the
graph is only its structure: a hinge (``ReluBackward0``, ``ThresholdBackward0``, or a
``ClampMinBackward0`` that is not the floor of a norm inside ``F.normalize``) and a
normalisation (a ``DivBackward0`` dividing by a vector norm, through a clamp or an expand:
``F.normalize``, ``F.cosine_similarity``). The margins themselves are Python numbers that
autograd does not keep; the loss values tell whether they were met.

Reads the nodes of the shared walk of the loss's graph (``graph_walks.LossGraph``) on the
first ``HINGE_WALK_STEPS`` recorded steps only; names of nodes and their children only, no
tensor is read.
"""
from .graph_walks import FirstStepsReader

HINGE_WALK_STEPS = 3            # [design] recorded steps walked (the loss has one form a loop)
HINGE_NODES = {"ReluBackward0", "ThresholdBackward0"}
HINGE_CLAMP = "ClampMinBackward0"
HINGE_NORMS = {"LinalgVectorNormBackward0", "NormBackward1", "NormBackward0"}
# between a division and the norm it divides by
HINGE_NORM_PASS = {"ClampMinBackward0", "ExpandBackward0", "UnsqueezeBackward0", "ViewBackward0"}
HINGE_NORM_LOOK_DOWN = 3        # [design] such nodes followed down at most


class LossHinges(FirstStepsReader):
    """A reader of ``graph_walks.LossGraph``: keeps (step, hinges, normalised)."""
    steps = HINGE_WALK_STEPS

    def keep(self, step, nodes):
        hinges = sum(1 for node in nodes if _is_hinge(node))
        if hinges:
            normalised = any(type(node).__name__ == "DivBackward0" and _divides_by_norm(node)
                             for node in nodes)
            self.observed.loss_hinges.append((step, hinges, bool(normalised)))


def _children(node):
    return [child for child, _ in getattr(node, "next_functions", ()) if child is not None]


def _is_hinge(node):
    name = type(node).__name__
    if name in HINGE_NODES:
        return True
    if name != HINGE_CLAMP:
        return False
    return not any(type(child).__name__ in HINGE_NORMS for child in _children(node))


def _divides_by_norm(node):
    frontier = _children(node)
    for _ in range(HINGE_NORM_LOOK_DOWN):
        if any(type(child).__name__ in HINGE_NORMS for child in frontier):
            return True
        frontier = [grand for child in frontier if type(child).__name__ in HINGE_NORM_PASS
                    for grand in _children(child)]
    return False

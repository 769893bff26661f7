"""Loss terms that are a plain mean of a sigmoid of a layer's raw score
(``run.observed.squashed_score_terms``; CRITIC_OUTPUT_SQUASHED,
``nndebug.rules.squashed_scores``).

A Wasserstein critic's score is read as it is: ``loss = -critic(fake).mean()``. Put a
sigmoid after the critic's last layer, as a standard GAN's discriminator has, and the
loss reads a probability instead (bojone/T-GANs#3): as soon as the critic separates real
from fake the sigmoid saturates, its slope shrinks every gradient the generator gets, and
the generator learns slowly. A standard GAN's loss takes the log of that probability
(binary cross-entropy), which undoes the squashing; a plain mean does not.

In torch's graph such a term is an addend of the loss's top-level sum
(``loss_reductions.top_level_addends``: through +, -, negation and constant factors) that
is a full mean or sum (``MeanBackward0``/``SumBackward0``) whose input is a
``SigmoidBackward0`` fed straight by a linear layer (``AddmmBackward0``, or a view of one):
a raw score squashed, then averaged. A sigmoid of a difference of scores (a smooth ranking
loss) or a sigmoid multiplied with targets (a soft Dice) is not fed by a layer and is left
alone. Node types outlive the backward, so the nodes come from the shared walk of the
loss's graph (``graph_walks.LossGraph``) on the first ``WALK_STEPS`` recorded steps: no
per-step cost after them, no host transfer.
"""
from .graph_walks import FirstStepsReader
from .loss_reductions import top_level_addends

WALK_STEPS = 3            # [design] recorded steps read: the loss's graph has the same shape
                          # on every step of an ordinary loop
MEANS = {"MeanBackward0", "SumBackward0", "MeanBackward1", "SumBackward1"}
LAYER_NODES = {"AddmmBackward0", "LinearBackward0"}
SHAPE_NODES = {"ViewBackward0", "ReshapeAliasBackward0", "SqueezeBackward0",
               "SqueezeBackward1", "UnsqueezeBackward0"}


class SquashedScores(FirstStepsReader):
    """A reader of ``graph_walks.LossGraph``: one row per step with such terms."""
    steps = WALK_STEPS

    def keep(self, step, nodes):
        if nodes:
            found = squashed_score_terms(nodes[0])
            if found:
                self.observed.squashed_score_terms.append((step, found))


def squashed_score_terms(root):
    """How many addends of the loss at ``root`` are a mean (or sum) of a sigmoid of a
    layer's raw score."""
    return sum(1 for node, _ in top_level_addends(root) if _mean_of_squashed_score(node))


def _mean_of_squashed_score(node):
    if type(node).__name__ not in MEANS:
        return False
    squash = _first_input(node)
    if squash is None or type(squash).__name__ != "SigmoidBackward0":
        return False
    score = _first_input(squash)
    while score is not None and type(score).__name__ in SHAPE_NODES:
        score = _first_input(score)
    return score is not None and type(score).__name__ in LAYER_NODES


def _first_input(node):
    """The node's first input with a graph (means, sigmoids and views have one)."""
    inputs = [child for child, _ in getattr(node, "next_functions", ()) if child is not None]
    return inputs[0] if inputs else None

"""A whole batch's total broadcast back onto every sample inside a loss term
(``run.observed.batch_totals_in_terms``; LOSS_TERMS_REDUCED_DIFFERENTLY,
``nndebug.rules.loss_reductions.batch_total_inside_term``).

``kl = -0.5 * torch.sum(1 + log_var - mean ** 2 - log_var.exp())`` written without ``dim``
sums over the latent units AND the batch: one scalar. Multiplied by a per-event mask, or
added to a per-sample reconstruction, it is broadcast back to every sample, and the loss's
final reduction then counts it once per sample (EDAPINENUT/GNTPP#4): the term weighs about
batch-size times too much against the per-sample terms next to it, and nothing errs, since
a scalar times a (batch, ...) tensor has the tensor's shape.

In torch's graph: an addend of the loss's top-level sum (``loss_reductions.top_level_addends``)
that is a full reduction (``SumBackward0``/``MeanBackward0``) of a tensor that leads with a
batch axis of 2+, and under it, reached through additions, products and negations only, a
full ``SumBackward0`` of another tensor with the same leading size and 2+ axes - a batch's
total inside a per-sample expression. Not counted: a mean (``x - x.mean()`` centring, a
Pearson correlation, a baseline), a path through a subtraction or a division (standardising,
normalising weights by their sum: other bugs or no bug), partial sums (``sum(dim=-1)``, the
fix), and a sum of a parameter (an L2 penalty added per sample: its leading size is a
layer's width; the sum's input is read two nodes down for a parameter). Node types and
reduced sizes outlive the backward, so the nodes come from the shared walk of the loss's
graph (``graph_walks.LossGraph``) on the first ``BATCH_TOTAL_STEPS`` recorded steps: no
per-step cost after them, no host transfer.
"""
from .graph_walks import FirstStepsReader
from .loss_reductions import top_level_addends

BATCH_TOTAL_STEPS = 3        # [design] recorded steps read: a loop builds the same loss on
                             # every step
BATCH_TOTAL_WALK = 64        # [design] nodes walked under each reduction: a loss term's own
                             # operations (a KL, a mask, a weight) are a few dozen at most
OUTER_REDUCTIONS = {"SumBackward0", "MeanBackward0"}
PATH_NODES = {"AddBackward0", "MulBackward0", "NegBackward0", "ExpandBackward0",
              "ViewBackward0", "UnsqueezeBackward0", "SqueezeBackward0", "SqueezeBackward1"}


class BatchTotals(FirstStepsReader):
    """A reader of ``graph_walks.LossGraph``: one row per step with such a term."""
    steps = BATCH_TOTAL_STEPS

    def keep(self, step, nodes):
        if nodes:
            found = batch_totals_in_terms(nodes[0])
            if found:
                self.observed.batch_totals_in_terms.append((step,) + found[0])


def batch_totals_in_terms(root):
    """[(inner shape, outer reduction, outer shape)] for each addend of the loss at ``root``
    that reduces a per-sample tensor holding a whole batch's total."""
    found = []
    for node, _ in top_level_addends(root):
        name = type(node).__name__
        if name not in OUTER_REDUCTIONS:
            continue
        outer = _sizes(node)
        if len(outer) < 1 or outer[0] < 2:
            continue
        inner = _batch_total_below(node, outer[0])
        if inner is not None:
            found.append((list(inner), "sum" if name == "SumBackward0" else "mean",
                          list(outer)))
    return found


def _batch_total_below(top, batch):
    """The sizes of a full sum of a (batch, ...) tensor reached from ``top`` through
    ``PATH_NODES`` only, or None."""
    stack, seen = [child for child, _ in top.next_functions if child is not None], set()
    while stack and len(seen) < BATCH_TOTAL_WALK:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        name = type(node).__name__
        if name == "SumBackward0":
            sizes = _sizes(node)
            if len(sizes) >= 2 and sizes[0] == batch and not _sums_a_parameter(node):
                return sizes
            continue
        if name in PATH_NODES:
            stack.extend(child for child, _ in node.next_functions if child is not None)
    return None


def _sizes(node):
    return tuple(int(n) for n in getattr(node, "_saved_self_sym_sizes", ()) or ())


def _sums_a_parameter(node):
    """Whether the summed tensor is a parameter, or one operation on parameters (w ** 2)."""
    for child, _ in node.next_functions:
        if child is None:
            continue
        if type(child).__name__ == "AccumulateGrad":
            return True
        for grandchild, _ in child.next_functions:
            if grandchild is not None and type(grandchild).__name__ == "AccumulateGrad" and \
                    all(g is None or type(g).__name__ == "AccumulateGrad"
                        for g, _ in child.next_functions):
                return True
    return False

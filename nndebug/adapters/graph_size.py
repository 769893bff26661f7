"""How many operations the graph behind a loss holds: the same model gives the same count
every step, unless the graph reaches back into earlier steps.

A recurrent state carried from batch to batch without ``.detach()`` links each step's
graph to the previous one: backward then runs through every batch seen so far (its time
grows step after step), and the gradients mix in earlier batches. torch refuses the second
backward through a freed graph (and with ``retain_graph=True``, usually a weight changed in
place by the optimizer); minigrad keeps every graph alive and says nothing.

The same walk notes which operations have a backward written in Python (torch: a
``torch.autograd.Function`` of the user's or a library's, and the nodes a module's backward
hook adds). Every other torch operation backpropagates through torch's own derivative
formulas, which are linear in the gradient they receive by construction; only a
Python-written backward can ignore it (GRADIENT_IGNORES_LOSS, whose probe is skipped when
the graph holds none).

``walk_graph(framework, tensor)`` walks the graph once (at most ``limit`` nodes) and
never changes it.
"""
GRAPH_SIZE_LIMIT = 50000     # nodes counted at most: a growing graph shows long before this


def graph_nodes(framework, tensor, limit=GRAPH_SIZE_LIMIT):
    """The number of operations (backward nodes) ``tensor`` was computed through, at most
    ``limit``; None where the framework is unknown or the tensor has no graph."""
    return walk_graph(framework, tensor, limit)[0]


def walk_graph(framework, tensor, limit=GRAPH_SIZE_LIMIT):
    """(the number of operations as ``graph_nodes`` counts them, the names of those whose
    backward is written in Python). The names are None where that is not known: minigrad,
    whose every backward is Python (it is the engine learners break), an unknown
    framework, or a graph larger than ``limit``."""
    seen = set()
    if framework == "torch":
        from torch.autograd.function import BackwardCFunction
        python_written = set()
        stack = [getattr(tensor, "grad_fn", None)]
        while stack and len(seen) < limit:
            node = stack.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(node, BackwardCFunction):
                python_written.add(type(node).__name__)
            stack.extend(next_node for next_node, _ in getattr(node, "next_functions", ()))
        return len(seen) or None, python_written if not stack else None
    if framework == "minigrad":
        stack = [getattr(tensor, "_node", None)]
        while stack and len(seen) < limit:
            node = stack.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            stack.extend(getattr(parent, "_node", None) for parent in node.parents)
        return len(seen) or None, None
    return None, None

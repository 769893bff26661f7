"""How many operations the graph behind a loss holds: the same model gives the same count
every step, unless the graph reaches back into earlier steps.

A recurrent state carried from batch to batch without ``.detach()`` links each step's
graph to the previous one: backward then runs through every batch seen so far (its time
grows step after step), and the gradients mix in earlier batches. torch refuses the second
backward through a freed graph (and with ``retain_graph=True``, usually a weight changed in
place by the optimizer); minigrad keeps every graph alive and says nothing.

``graph_nodes(framework, tensor)`` walks the graph once (at most ``limit`` nodes) and
never changes it.
"""
GRAPH_SIZE_LIMIT = 50000     # nodes counted at most: a growing graph shows long before this


def graph_nodes(framework, tensor, limit=GRAPH_SIZE_LIMIT):
    """The number of operations (backward nodes) ``tensor`` was computed through, at most
    ``limit``; None where the framework is unknown or the tensor has no graph."""
    seen = set()
    if framework == "torch":
        stack = [getattr(tensor, "grad_fn", None)]
        while stack and len(seen) < limit:
            node = stack.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            stack.extend(next_node for next_node, _ in getattr(node, "next_functions", ()))
        return len(seen) or None
    if framework == "minigrad":
        stack = [getattr(tensor, "_node", None)]
        while stack and len(seen) < limit:
            node = stack.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            stack.extend(getattr(parent, "_node", None) for parent in node.parents)
        return len(seen) or None
    return None

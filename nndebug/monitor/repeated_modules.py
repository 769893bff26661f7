"""One module object listed at several positions of a Sequential or ModuleList
(MODULE_REPEATED_IN_CONTAINER, ``nndebug.rules.repeated_modules``).

``nn.Sequential(*(n * [Block(c)]))`` and ``nn.ModuleList([nn.Conv2d(c, c, 3)] * 4)`` read
like n blocks, but Python's list multiplication repeats one reference: the container holds
the same object n times. Every position shares one set of weights (and one batch norm's
running statistics), which the author meant to be n layers. ``named_modules()`` and
``parameters()`` list a shared module once, so nothing downstream sees the repetition; the
container's own table of children (torch's ``_modules``) still names each position.

Read when findings are asked for (a container may be filled after ``watch`` starts): one pass
over the model's modules, looking in each positional container (children named 0, 1, 2,
...) for a child object that sits at two or more positions and holds trainable parameters.
A repeated module without parameters (one ReLU object used twice) shares nothing and is
left out. No per-step cost. Kept in ``run.observed.repeated_modules`` as ``[(container
name, child type, [positions], trainable parameter tensors)]`` ("" is the model itself).
"""

ROWS_KEPT = 16            # [design] repeated children noted at most (one is enough to name)


def _children(adapter, module):
    """[(key, child)] with every position kept: torch's ``named_children()`` yields a shared
    child once, its ``_modules`` table once per key."""
    table = vars(module).get("_modules")
    if isinstance(table, dict):
        return [(key, child) for key, child in table.items() if child is not None]
    return adapter.named_children(module)


def _trainable_tensors(module):
    parameters = getattr(module, "parameters", None)
    if parameters is None:
        return 0
    return sum(1 for p in parameters() if getattr(p, "requires_grad", True))


def read_repeated_modules(adapter, observed, on_error):
    try:
        found = []
        for name, module in adapter.named_modules():
            children = _children(adapter, module)
            if len(children) < 2 or not all(str(key).isdigit() for key, _ in children):
                continue
            positions = {}
            for key, child in children:
                positions.setdefault(id(child), (child, []))[1].append(int(key))
            for child, keys in positions.values():
                tensors = _trainable_tensors(child) if len(keys) > 1 else 0
                if tensors and len(found) < ROWS_KEPT:
                    found.append((name, adapter.module_type(child), keys, tensors))
        observed.repeated_modules = found
    except Exception as error:            # never break the user's run
        on_error(error)

"""A per-element binary cross-entropy weighted by its own targets
(``run.observed.self_masked_targets``; PSEUDO_LABELS_ONE_CLASS,
``nndebug.rules.self_masked_targets``).

Confidence-masked pseudo-labelling on one sigmoid output is written
``(BCE(strong, targets_u, reduction='none') * mask).mean()``, the target from which side of
0.5 the weak view's probability lies, the mask from how far. When the mask is passed as the
target too - ``mask = p >= 0.95`` then ``BCE(strong, mask) * mask`` - every element the
mask keeps has target 1 and every other is multiplied away: the unlabelled data only ever
teach "positive" (kekmodel/FixMatch-pytorch#11). A class-balanced BCE written by hand
multiplies the same loss by ``y`` AND by ``1 - y``: it is told apart because the loss node
has another consumer.

What is read: the nodes of the loss's graph just before ``loss.backward()`` (while the
saved tensors live: the origin watch's mode sees the call, ``nonfinite_origins.py``) on the
first ``STEPS_READ`` recorded steps it watches: each binary cross-entropy node with reduction
"none" whose every consumer in the graph is a product with a tensor that takes no gradient,
and that tensor is its own target (the same memory, or on the CPU equal values). Python
objects and pointers only on an accelerator: no device work, no transfer.
Cost: nothing past the first recorded steps; on them, a type test per node and its parents.
"""
from .graph_walks import LOSS_WALK_LIMIT, FirstStepsReader, constant_operand, nodes_under

STEPS_READ = 3               # [design] recorded steps whose loss graph is read
BCE_NODES = {"BinaryCrossEntropyWithLogitsBackward0", "BinaryCrossEntropyBackward0"}


class SelfMaskedTargets(FirstStepsReader):
    """Reads the loss's graph before the backward: keeps (step, elements of the target) for each
    per-element binary cross-entropy multiplied only by its own target."""
    steps = STEPS_READ

    def before_backward(self, step, loss):
        """``loss.backward()`` is about to run (``nonfinite_origins.py``'s mode on the first
        recorded steps): the saved targets and masks are still there."""
        root = getattr(loss, "grad_fn", None)
        if step is None or root is None or not self.wants(step):
            return
        self.read(int(step), nodes_under([root], LOSS_WALK_LIMIT))

    def keep(self, step, nodes):
        consumers = {}                       # id(BCE node) -> (node, [consumer nodes])
        for node in nodes:
            for child, _ in getattr(node, "next_functions", ()):
                if child is not None and type(child).__name__ in BCE_NODES:
                    consumers.setdefault(id(child), (child, []))[1].append(node)
        for bce, users in consumers.values():
            if getattr(bce, "_saved_reduction", None) != 0:   # 0: reduction="none"
                continue
            try:
                target = bce._saved_target
            except (AttributeError, RuntimeError):
                continue
            if users and all(_is_target(constant_operand(user), target) for user in users):
                self.observed.self_masked_targets.append((int(step), int(target.numel())))


def _is_target(weight, target):
    """Whether ``weight`` is ``target``: the same memory, or equal values on the CPU."""
    if weight is None or tuple(weight.shape) != tuple(target.shape):
        return False
    if weight.data_ptr() == target.data_ptr() and weight.stride() == target.stride():
        return True
    if weight.device.type != "cpu" or target.device.type != "cpu":
        return False
    import torch
    return bool(torch.equal(weight, target))

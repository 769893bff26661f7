"""Binary cross-entropy calls whose prediction has no graph while their target has one
(``run.observed.swapped_loss_arguments``; LOSS_ARGUMENTS_SWAPPED,
``nndebug.rules.swapped_loss_arguments``).

``F.binary_cross_entropy_with_logits(images, logits)`` - the data where the prediction
goes, the model's output where the target goes - runs without a complaint: torch
differentiates a binary cross-entropy with respect to its target too. The loss is then
linear in the model's output (its slope is minus the data's logit), so it is lowered by
pushing every output one way without end (autonomousvision/sledge#4, a VAE's reconstruction
term). Binary cross-entropy is not symmetric, so its argument order is the user's to get
right; a mean squared error is symmetric and is left alone.

In torch's graph the loss node (``BinaryCrossEntropyWithLogitsBackward0``,
``BinaryCrossEntropyBackward0``) lists its inputs in call order: ``next_functions[0]`` is
the prediction's node, ``next_functions[1]`` the target's (None for a tensor without a
graph). Node types and that structure outlive the backward, so the nodes come from the
shared walk of the loss's graph (``graph_walks.LossGraph``) on the first ``WALK_STEPS``
recorded steps: no per-step cost after them, no host transfer.
"""
from .graph_walks import FirstStepsReader

WALK_STEPS = 3            # [design] recorded steps read: the loss's graph has the same shape
                          # on every step of an ordinary loop
# loss nodes whose two first inputs are (prediction, target) and whose meaning changes
# when they are exchanged, with the function's name for findings
ORDERED_LOSSES = {"BinaryCrossEntropyWithLogitsBackward0": "binary_cross_entropy_with_logits",
                  "BinaryCrossEntropyBackward0": "binary_cross_entropy"}


class SwappedLossArguments(FirstStepsReader):
    """A reader of ``graph_walks.LossGraph``: one row per step and swapped call."""
    steps = WALK_STEPS

    def keep(self, step, nodes):
        self.observed.swapped_loss_arguments.extend(
            (step, name) for name in swapped_calls(nodes))


def swapped_calls(nodes):
    """The names of the ordered losses among ``nodes`` whose prediction has no graph and
    whose target has one (each call once)."""
    found = []
    for node in nodes:
        name = ORDERED_LOSSES.get(type(node).__name__)
        inputs = [child for child, _ in getattr(node, "next_functions", ())]
        if name is not None and len(inputs) >= 2 and inputs[0] is None \
                and inputs[1] is not None:
            found.append(name)
    return found

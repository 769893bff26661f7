"""PPO's probability ratios, read when ``loss.backward()`` is called
(``run.observed.ppo_ratios``; PPO_RATIO_ALWAYS_ONE, ``nndebug.rules.ppo_ratios``).

PPO weighs each action by ``ratio = exp(log_prob - old_log_prob)``: the current policy's
probability over the probability the SAMPLING policy gave when the rollout was collected,
clipped to ``[1 - eps, 1 + eps]`` so that the many epochs over one rollout cannot carry the
policy far from the one that collected it. On the first minibatch of a rollout the two
policies are the same and the ratio is exactly 1; after the first optimizer step it is
not. Computed from the current policy twice (``log_prob - log_prob.detach()``, or the old
log-probability recomputed from the same parameters under ``no_grad``/a stop-gradient,
tensorforce/tensorforce#312), the ratio is exactly 1 on every step: the clip never acts,
and every epoch is a plain, unclipped policy-gradient step on stale data.

In torch's graph the ratio is an ``ExpBackward0`` over a ``SubBackward0`` one of whose
operands leads to a picked normalised log-probability (the test ``policy_gradient_terms.py``
uses) and the other is a constant. The graph's shape is looked at after the backward of the
first ``STRUCTURE_SCANS`` recorded steps (node types only, in the shared walk of the loss's
graph, ``graph_walks.LossGraph``: no walk of its own); only a loss that has such a
ratio gets, on the next ``STEPS_MEASURED`` recorded steps, a torch function mode that sees
``loss.backward()`` called (before it frees the saved tensors) and reads each ratio's
largest distance from 1: one row ``(step, distance, entries)`` per ratio.

Cost: nothing for a loss without a ratio; otherwise a function mode on a handful of
recorded steps, one bounded walk of the loss's graph and one host read per ratio on each.
"""
from .function_modes import BackwardWatch
from .graph_walks import LOSS_WALK_LIMIT, nodes_under
from .policy_gradient_terms import log_probability

STRUCTURE_SCANS = 3       # [design] first recorded steps whose graph is looked at for a ratio
STEPS_MEASURED = 4        # [design] recorded steps whose ratios are read: the first minibatch
                          # of a rollout (ratio 1 in every healthy loop) and the ones after it
BACKWARDS_PER_STEP = 2    # [design] backward calls read per step (an actor's and a critic's)


class PpoRatios(BackwardWatch):
    """A reader of the shared loss-graph walk (``wants``/``read``: is there a ratio?), then
    a backward watch (``function_modes.BackwardWatch``) that reads the ratios."""
    steps = STEPS_MEASURED

    def __init__(self, adapter, observed, on_error):
        super().__init__(adapter.framework == "torch", on_error)
        self.observed = observed
        self.scans, self._backwards = 0, 0

    def wants(self, step):
        """As a reader of the shared loss-graph walk (``graph_walks.LossGraph``): the
        first STRUCTURE_SCANS recorded steps, until a ratio was seen."""
        return self.enabled and not self.wanted and self.scans < STRUCTURE_SCANS

    def read(self, step, nodes):
        """A recorded step's loss graph, walked after its backward: node types only."""
        self.scans += 1
        self.wanted = any(_is_ratio(node) for node in nodes)

    def begin_step(self, step):
        self._backwards = 0

    def on_backward(self, step, loss):
        if self._backwards >= BACKWARDS_PER_STEP:
            return
        self._backwards += 1
        try:
            for node in nodes_under([loss.grad_fn], LOSS_WALK_LIMIT):
                if _is_ratio(node):
                    ratio = node._saved_result
                    distance = float((ratio.detach().float() - 1).abs().max())
                    self.observed.ppo_ratios.append((step, distance, int(ratio.numel())))
        except Exception as error:          # a graph we cannot read costs this step
            self.on_error(error)


def _is_ratio(node):
    """``exp(log_prob - constant)``: an ExpBackward0 over a difference whose one operand
    leads to a picked log-probability and whose other is a constant."""
    if type(node).__name__ != "ExpBackward0":
        return False
    below = [child for child, _ in node.next_functions]
    if len(below) != 1 or type(below[0]).__name__ != "SubBackward0":
        return False
    operands = [child for child, _ in below[0].next_functions]
    return len(operands) == 2 and operands[1] is None and \
        log_probability(operands[0], structure_only=True) is not None

"""A loss term that compares the model with a "reference" that is the model itself
(``run.observed.self_references``, read by ``nndebug.rules.self_references``).

A KL penalty to a frozen reference policy, a distillation term to the old model, a
penalty pulling the weights toward their saved values: each subtracts a constant
reference from something the model computes, ``log_probs - ref_log_probs`` or
``param - saved``. When the reference is no copy - the same model object passed as the
policy and as the reference (huggingface/trl#2046), ``old_model = model``, saved weights
kept as ``p.detach()`` (the same storage) - the two operands are equal on every step, the
term is 0 with no gradient, and nothing holds the model near its reference.

In torch's graph such a term holds a ``SubBackward0`` (or a loss comparing an input with
a target: MSE, L1, smooth L1, Huber, KL divergence) one of whose operands has no graph
(the shared loss-graph walk, ``graph_walks.LossGraph``, on the first ``STRUCTURE_SCANS``
recorded steps; a difference under an ``ExpBackward0`` is a probability ratio, left to
``ppo_ratios.py``). Only a loss with one gets, on the next ``STEPS_MEASURED`` recorded
steps, a torch function mode that compares the two operands of each such subtraction when
it is computed (``torch.equal``: one host read per subtraction, at most
``CHECKS_PER_STEP`` a step) and, when ``loss.backward()`` is called, keeps those whose
result reaches the loss: one row ``(step, subtractions exactly equal, subtractions
compared)`` per measured step.

Cost: nothing for a loss without such a difference; otherwise a function mode on a handful
of recorded steps.
"""
from .function_modes import BackwardWatch
from .graph_walks import LOSS_WALK_LIMIT, nodes_under

STRUCTURE_SCANS = 3       # [design] first recorded steps whose loss graph is looked at
STEPS_MEASURED = 4        # [design] recorded steps whose subtractions are compared: the
                          # first step after watch() may still see the copy equal to the
                          # model; three more after optimizer steps cannot
CHECKS_PER_STEP = 16      # [design] subtractions compared per step at most (host reads)
PROBABILITY_RTOL = 1e-5   # [design] log-probabilities' exp against probabilities: float32
                          # rounding is ~1e-7; one Adam step of 1e-3 moves them ~1e-3
SUB, EXP = "SubBackward0", "ExpBackward0"
COMPARISONS = {SUB, "MseLossBackward0", "L1LossBackward0", "SmoothL1LossBackward0",
               "HuberLossBackward0", "KlDivBackward0"}   # [convention] torch's nodes of a
                                                          # difference and of the losses
                                                          # that compare input and target


class SelfReferences(BackwardWatch):
    """A reader of the shared loss-graph walk, then a function mode on a few steps (armed
    and retired by ``BackwardWatch``)."""
    steps = STEPS_MEASURED

    def __init__(self, adapter, observed, on_error):
        super().__init__(adapter.framework == "torch", on_error)
        self.observed, self.scans = observed, 0
        self._checked, self._backwards = {}, 0

    # --- the structure scan (graph_walks.LossGraph) ---------------------------------------
    def wants(self, step):
        return self.enabled and not self.wanted and self.scans < STRUCTURE_SCANS

    def read(self, step, nodes):
        self.scans += 1
        self.wanted = bool(_reference_differences(nodes))

    # --- the measured steps -----------------------------------------------------------
    def begin_step(self, step):
        self._checked, self._backwards = {}, 0

    def make_mode(self):
        return _comparing_mode(self)

    def disarm(self):
        super().disarm()
        self._checked = {}

    def compare(self, result, operands, probabilities=False):
        """A subtraction or a comparing loss just computed: are its two operands (one with
        a graph, one without) exactly equal? ``probabilities``: the second operand is the
        first's exp (``kl_div``'s default target), compared to float rounding."""
        import torch
        from ..adapters.torch_adapter import transformed
        if len(self._checked) >= CHECKS_PER_STEP or getattr(result, "grad_fn", None) is None:
            return
        a, b = operands
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)) or \
                transformed(a) or transformed(b) or a.shape != b.shape or a.numel() < 2 or not a.is_floating_point() or \
                a.requires_grad == b.requires_grad:
            return
        a, b = a.detach(), b.detach()
        self._checked[result.grad_fn] = bool(
            torch.allclose(a.exp(), b, rtol=PROBABILITY_RTOL, atol=0) if probabilities
            else torch.equal(a, b))

    def on_backward(self, step, loss):
        if self._backwards >= 1 or not self._checked:
            return
        self._backwards += 1
        nodes = nodes_under([loss.grad_fn], LOSS_WALK_LIMIT)
        reaching = set(nodes) - _ratio_operands(nodes)   # a kl_div's node is its reduction's
        seen = [equal for node, equal in self._checked.items() if node in reaching]
        if seen:
            self.observed.self_references.append((step, sum(seen), len(seen)))


def _reference_differences(nodes):
    """The differences (``SubBackward0``) and comparing losses (``COMPARISONS``) among
    ``nodes`` with exactly one operand without a graph; a difference under an
    ``ExpBackward0`` is a probability ratio and left out."""
    ratios = _ratio_operands(nodes)
    found = []
    for node in nodes:
        if type(node).__name__ not in COMPARISONS or node in ratios:
            continue
        operands = [child for child, _ in node.next_functions]
        if len(operands) == 2 and (operands[0] is None) != (operands[1] is None):
            found.append(node)
    return found


def _ratio_operands(nodes):
    """The nodes right under an ``ExpBackward0``: ``exp(a - b)`` is a probability ratio."""
    return {child for node in nodes if type(node).__name__ == EXP
            for child, _ in node.next_functions}


def _comparing_mode(owner):
    import torch
    from torch.overrides import TorchFunctionMode

    import torch.nn.functional as F
    subtractions = {torch.sub, torch.subtract, torch.Tensor.sub, torch.Tensor.__sub__,
                    torch.Tensor.__rsub__, F.mse_loss, F.l1_loss, F.smooth_l1_loss,
                    F.huber_loss}

    class ComparingMode(TorchFunctionMode):
        active = True

        def __torch_function__(self, func, types, args=(), kwargs=None):
            if self.active and func is torch.Tensor.backward and args:
                try:
                    owner._on_backward(args[0])
                except Exception as error:     # a graph we cannot read costs this step
                    self.active = False
                    owner.on_error(error)
            result = func(*args, **(kwargs or {}))
            if self.active and (func in subtractions or func is F.kl_div):
                try:
                    operands = _operands(func, args, kwargs or {})
                    if operands is not None:
                        owner.compare(result, operands, probabilities=func is F.kl_div and
                                      not (kwargs or {}).get("log_target", False))
                except Exception as error:     # a measurement never breaks the user's step
                    self.active = False
                    owner.on_error(error)
            return result

    def _operands(func, args, kwargs):
        """(input, target) of a comparing loss, (a, b) of a subtraction; None when an
        ``alpha`` scales it or an operand is missing."""
        if "alpha" in kwargs:
            return None
        first = args[0] if args else kwargs.get("input")
        second = args[1] if len(args) > 1 else kwargs.get("target", kwargs.get("other"))
        return None if first is None or second is None else (first, second)

    return ComparingMode()

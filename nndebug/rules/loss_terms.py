"""LOSS_TERM_WITHOUT_GRADIENT: a term of the loss adds to its value but carries no gradient.

A penalty computed through ``argmax``, ``.item()``, NumPy or under ``no_grad`` and then
added to the differentiable loss moves the printed loss, but not one parameter: the model
trains exactly as without it, whatever its weight. The monitor reads the loss's top-level
sum on the first recorded steps (``monitor/loss_terms.py``, ``run.observed.loss_terms``):
the addends that have no graph, with their value and share of the loss.

The same code names a derivative in the loss that is a constant (real-bug batch 274): a
torch.autograd.grad call with create_graph=True, taken with respect to a tensor the model
computed rather than an input it reads, whose result has no graph (``grad(y.sum(), y)``,
the prediction differentiated by itself: ones), on most noted steps
(``run.observed.derivative_calls``, "computed"). A residual dy/dt + y built from it reads
1 + y: the derivative part never moves a weight and the network never sees the equation.

Three healthy things look alike in the graph and stay silent here. A term computed from
data alone never had a gradient to lose (real-bug batch 206: a debiased Sinkhorn divergence
subtracts OT(prior, prior) / 2, a term of prior samples only): a term the monitor saw made
from data, without a tensor of the model's and without a trip through the host
(``LossTerm.data_only``), is left out. An offset that is the same on every step (``loss +
0``, a constant added so the loss reads as a KL divergence) is not a penalty anyone expects
to train, and a term too small to matter (an accumulator started at ``torch.zeros(())``) is
not worth a warning. So the term must be a sizable share of the loss on most measured
steps, and change from step to step (it is computed from the batch, as a penalty is).
"""
import math

from ..findings import Finding
from .context import observed_list
from .graph import rule

SIZABLE_SHARE = 0.01         # [design] a term above 1% of |loss| is meant to matter
MOST_STEPS = 0.5             # [design] sizable on more than half of the measured steps
MIN_STEPS = 3                # [design] measured steps needed: one batch's value is not a habit
CONSTANT_DERIVATIVE_STEPS = 2   # [design] noted steps with a constant derivative: one
                                # step's call could be a one-off (a logging call)
VARIES = 1e-3                # [design] its values spread over more than 0.1% of the largest:
                             # below, an offset added the same on every step


def largest_per_step(terms):
    """{step: the term of largest |value| measured on that step} (finite values only)."""
    by_step = {}
    for term in terms:
        if term.value is None or term.share is None or not math.isfinite(term.value):
            continue
        if getattr(term, "data_only", False):
            continue     # computed from data alone: it never had a gradient to lose
        if term.step not in by_step or abs(term.value) > abs(by_step[term.step].value):
            by_step[term.step] = term
    return dict(sorted(by_step.items()))


def penalty_without_gradient(terms):
    """The per-step terms when they read as a penalty: sizable on most steps (a term cut by
    sign or round: on one step at least), and changing from step to step; None otherwise."""
    by_step = largest_per_step(terms)
    if len(by_step) < MIN_STEPS:
        return None
    sizable = [t for t in by_step.values() if t.share > SIZABLE_SHARE]
    values = [t.value for t in by_step.values()]
    spread = max(values) - min(values)
    if len(sizable) < _sizable_steps_needed(by_step) or \
            spread <= VARIES * max(abs(v) for v in values):
        return None
    return by_step


def _sizable_steps_needed(by_step):
    """More than half the measured steps for a constant; one step for terms computed
    through a zero-derivative operation on every step. A constant may be an accumulator
    started at zero or an offset, and only its size tells a penalty; a sign() or round()
    of the model's output is a penalty by construction, and the share of a penalty grows as
    the main loss falls (real-bug batch 346: DSH's quantisation term, 0.7% of the loss on
    the first recorded steps, 8% by step 128)."""
    if all(t.cut_by for t in by_step.values()):
        return 1
    return math.floor(MOST_STEPS * len(by_step)) + 1


def constant_derivative_steps(calls):
    """The noted steps on which a torch.autograd.grad call with create_graph=True, taken
    with respect to a tensor the graph computed, returned a constant (``monitor/
    derivative_calls.py`` notes it "computed"); None unless most noted steps show it."""
    steps = sorted({c[0] for c in calls})
    flagged = sorted({c[0] for c in calls if c[2] == "computed"})
    if len(flagged) < CONSTANT_DERIVATIVE_STEPS or len(flagged) <= MOST_STEPS * len(steps):
        return None
    return flagged


def _constant_derivative(ctx):
    """LOSS_TERM_WITHOUT_GRADIENT for a derivative in the loss that is a constant: the
    prediction differentiated by itself (real-bug batch 274, discourse.julialang.org
    103723: ``gradient(prediction -> sum(prediction), prediction)`` "evaluates to all
    ones")."""
    flagged = constant_derivative_steps(observed_list(ctx, "derivative_calls"))
    if flagged is None:
        return None
    return Finding(
        code="LOSS_TERM_WITHOUT_GRADIENT", severity="warning", where="loss", step=flagged[0],
        message=f"A derivative the loop takes carries no gradient: torch.autograd.grad with "
                f"create_graph=True, with respect to a tensor the model computed (not an "
                f"input it reads), returned a constant on {len(flagged)} noted step(s). "
                "Differentiating the prediction by itself (grad(y.sum(), y)) gives ones, not "
                "dy/dt: a residual built from it never sees the equation, and no weight "
                "moves that term.",
        evidence={"steps": flagged, "with_respect_to": "computed tensor"},
        fix="Differentiate the output with respect to the input the model reads: t = "
            "t.requires_grad_(True); y = model(t); dy_dt = torch.autograd.grad(y, t, "
            "torch.ones_like(y), create_graph=True)[0].")


@rule(produces="LOSS_TERM_WITHOUT_GRADIENT")
def loss_term_without_gradient(ctx):
    by_step = penalty_without_gradient(observed_list(ctx, "loss_terms"))
    if by_step is None:
        return _constant_derivative(ctx)
    shares = [t.share for t in by_step.values()]
    first = next(iter(by_step.values()))
    # real-bug batch 56: gradients taken by torch.autograd.grad without create_graph=True
    # come back as constants; a penalty built from them (IGA, a gradient penalty) is one
    graphless = [c[0] for c in observed_list(ctx, "derivative_calls") if not c[3]]
    cause = (f" torch.autograd.grad was called without create_graph=True on "
             f"{len(set(graphless))} noted step(s): the gradients it returns are constants, "
             "and a penalty built from them is one too." if graphless else "")
    cut = first.cut_by
    how = (f"computed through {_operation(cut)}, whose derivative is zero wherever it is "
           "defined: the graph keeps it and backpropagates zeros" if cut else
           f"a constant added through {first.made_by}")
    return Finding(
        code="LOSS_TERM_WITHOUT_GRADIENT", severity="warning", where="loss", step=first.step,
        message=f"A term of the loss has no gradient: it adds {min(shares):.0%} to "
                f"{max(shares):.0%} of the loss's value on the measured steps ({how}), but "
                "no gradient flows from it, so the model trains exactly as without it, "
                "whatever its weight." + cause,
        evidence={"steps": list(by_step), "values": [t.value for t in by_step.values()],
                  "shares": shares, "made_by": first.made_by, "cut_by": cut,
                  "sizable_share": SIZABLE_SHARE,
                  "grad_calls_without_graph": len(graphless)},
        fix=("Pass create_graph=True to torch.autograd.grad when its result enters the loss. "
             if graphless else "") +
            (f"{_operation(cut)} is flat: write the penalty with a function that has a "
             "slope (|u| for sign(u) in a quantisation term, u itself or a straight-through "
             "estimator, u + (u.round() - u).detach(), for round). " if cut else "") +
            "Compute the term from differentiable operations on the model's output: "
            "argmax, .item(), NumPy and torch.no_grad() cut the graph (a soft version, e.g. "
            "the probability mass of the disagreeing classes, trains). If the term is only "
            "reported, log it beside the loss instead of adding it.")


def _operation(node_name):
    """torch's node name as the call the user wrote: "SignBackward0" -> "sign()"."""
    return node_name.split("Backward")[0].lower() + "()"

"""Soft targets that carry a gradient (``run.observed.soft_target_gradients``,
``monitor/soft_target_gradients.py``): a distillation or consistency loss whose target
distribution was not taken under ``torch.no_grad()`` nor ``.detach()``-ed.

TEACHER_UPDATED_BY_OPTIMIZER: the target comes from another network (none of the watched
model's parameters below it), and the watched optimizer holds that network's parameters: the
optimizer was built over student and teacher and the teacher is trainable, so each step
pulls the teacher towards the student (huangzongmou/yolov8_Distillation#16: "the teacher
and the student are trained jointly, not the usual frozen teacher"). A teacher run with a
graph that no optimizer holds is left alone (its gradient is wasted, nothing moves).

CONSISTENCY_TARGET_NOT_DETACHED: the target is the watched model's own answer on another
forward (another view, another dropout draw), compared one way only: the consistency
term trains both of its sides, and -p log q pushes the target towards the prediction's top
class, so being confidently wrong pays as well as being right
(AlanChou/Deep-Co-Training-for-Semi-Supervised-Image-Recognition#1: "A detach operation is
indeed needed"). The prediction at chance on held-out digits is invisible in the training
loss (the labelled rows are memorised, the unlabelled ones pushed to one confident class),
so no poor-learning precondition is asked of the one-way form. R-Drop's symmetric KL between
two dropout draws keeps both sides' gradient on purpose and writes the comparison both ways,
and a divergence with the target's own entropy term (``F.kl_div``: p log p - p log q, TRADES'
robust term between the clean and the adversarial prediction) pays nothing for a confident
target: those forms are named only when the run does not learn.
"""
from ..findings import Finding
from .context import observed_list
from .curve import learning_poor
from .graph import rule

SOFT_TARGET_MIN_STEPS = 2           # [design] read steps (of the first 3 recorded) showing the same
                             # form: a loop's loss is built the same way every step


def _steps(rows, keep):
    return sorted({row[0] for row in rows if keep(row)})


@rule(produces="TEACHER_UPDATED_BY_OPTIMIZER")
def teacher_updated_by_optimizer(ctx):
    rows = observed_list(ctx, "soft_target_gradients")
    steps = _steps(rows, lambda r: r[1] == 0 and r[3] > 0)
    if len(steps) < min(SOFT_TARGET_MIN_STEPS, len({r[0] for r in rows})) or not steps:
        return None
    held = max(r[3] for r in rows if r[1] == 0 and r[3] > 0)
    return Finding(
        code="TEACHER_UPDATED_BY_OPTIMIZER", severity="warning", where="loss", step=steps[0],
        message=f"A soft target of the loss (a softmax compared with the model's "
                f"log-probabilities, as F.kl_div or a soft cross-entropy does) was computed "
                f"with a graph by another network, and the watched optimizer holds {held} of "
                f"that network's parameter tensors: every step moves the teacher towards the "
                f"student as well as the student towards the teacher, so the targets drift "
                f"from what the teacher knew (seen on steps {steps}).",
        evidence={"steps": steps, "teacher_tensors_in_optimizer": held},
        fix="Build the optimizer over the student's parameters only, freeze the teacher "
            "(requires_grad_(False), eval()) and compute its outputs under torch.no_grad().")


@rule(produces="CONSISTENCY_TARGET_NOT_DETACHED")
def consistency_target_not_detached(ctx):
    rows = observed_list(ctx, "soft_target_gradients")
    steps = _steps(rows, lambda r: r[1] > 0)
    if len(steps) < min(SOFT_TARGET_MIN_STEPS, len({r[0] for r in rows})) or not steps:
        return None
    one_way = [r[0] for r in rows if r[1] > 0 and not (len(r) > 4 and r[4])]
    if not one_way and not learning_poor(ctx):
        return None
    return Finding(
        code="CONSISTENCY_TARGET_NOT_DETACHED", severity="warning", where="loss",
        step=steps[0],
        message="A soft target of the loss (a softmax compared with log-probabilities of "
                "other scores: a consistency or pseudo-label term) is the watched model's "
                "own output on another forward, with its graph: the term trains both sides, "
                "pulling the target towards the prediction and, through -p log q, towards "
                "the prediction's top class, so being confidently wrong pays as well as "
                f"being right (seen on steps {steps}"
                + ("; a cross-entropy one way only, not a KL divergence nor the symmetric "
                   "KL of R-Drop)." if one_way else "; the run does not learn)."),
        evidence={"steps": steps, "one_way": bool(one_way)},
        fix="Take the target under torch.no_grad() or .detach() it: "
            "target = model(x_weak).softmax(1).detach().")

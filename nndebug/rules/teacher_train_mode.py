"""TEACHER_IN_TRAIN_MODE: a network the training step runs besides the watched model, whose
weights never change (a frozen distillation teacher), is left in training mode with dropout on (``run.observed.foreign_train_dropouts``,
``monitor/foreign_networks.py``).

A module is in training mode when it is built or loaded; a teacher run under
``torch.no_grad()`` but never given ``.eval()`` drops a random share of its units on every
call, so each soft target is the answer of a random sub-network: noisier and blunter than
the teacher's. Public report: "Is there a bug with the teacher model?",
https://github.com/yxuansu/TaCL/issues/11 ("the teacher model does not perform the eval()
operation, so whether the same input will get different results due to dropout"; the
author: "we might need to add eval() in the teacher model to disable the dropout"). A mean
teacher runs its EMA copy with noise on purpose; its weights follow the student's and it is
left alone, as is any network whose weights changed during the run (a GAN's discriminator).
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule


@rule(produces="TEACHER_IN_TRAIN_MODE")
def teacher_in_train_mode(ctx):
    rows = [r for r in observed_list(ctx, "foreign_train_dropouts") if r[2] > 0 and r[3] == 0]
    if not rows:
        return None
    kinds = sorted({kind for kind, *_ in rows})
    rates = sorted({round(p, 3) for _, p, _, _ in rows})
    return Finding(
        code="TEACHER_IN_TRAIN_MODE", severity="warning", where=", ".join(kinds), step=None,
        message=f"A network the training step runs besides the watched "
                f"model, whose weights never changed during the run ({rows[0][2]} parameter "
                f"tensors read: a frozen teacher), is in training mode: {len(rows)} of its "
                f"dropout layers (p = {', '.join(str(p) for p in rates)}) drop units on every "
                "call, so its outputs (the soft targets) are those of a random sub-network, "
                "noisier than the teacher's.",
        evidence={"dropouts": len(rows), "types": kinds, "p": rates,
                  "parameter_tensors": int(rows[0][2])},
        fix="Call teacher.eval() once before distilling (and after any .train() call on a "
            "module that holds it).")

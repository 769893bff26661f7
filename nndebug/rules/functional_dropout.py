"""DROPOUT_IGNORES_EVAL: a dropout function called in ``forward`` without
``training=self.training`` keeps dropping when the model is evaluated.

``F.dropout(x, p)`` defaults to ``training=True``; unlike an ``nn.Dropout`` layer it does not
follow ``model.eval()``. Training is unaffected, so no training statistic shows it; the
evaluated model is noisier than the trained one and answers differently on every run for
the same input. The calls are read from the model's source once, when watching starts
(``monitor/functional_dropout.py``, ``run.observed.functional_dropouts``): the finding
needs no steps, and a call in the source is a warning whatever the loss does.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

CALLS_LISTED = 5             # [design] calls named in the evidence at most


@rule(produces="DROPOUT_IGNORES_EVAL")
def dropout_ignores_eval(ctx):
    calls = observed_list(ctx, "functional_dropouts")
    if not calls:
        return None
    first = calls[0]
    place = f"{first.file}:{first.line}" if first.file else f"line {first.line}"
    others = f" (and {len(calls) - 1} more such call(s))" if len(calls) > 1 else ""
    return Finding(
        code="DROPOUT_IGNORES_EVAL", severity="warning", where=first.module_type,
        step=None,
        message=f"{first.module_type}.forward calls `{first.call}` ({place}){others}: the "
                "dropout function's training argument defaults to True and does not follow "
                "model.eval(), so the evaluated model still drops values and answers "
                "differently on every run for the same input.",
        evidence={"calls": [{"module": c.module_type, "file": c.file, "line": c.line,
                             "call": c.call} for c in calls[:CALLS_LISTED]],
                  "count": len(calls)},
        fix="Pass training=self.training to the dropout function, or build an nn.Dropout "
            "layer in __init__ and call it in forward (it follows train()/eval()).")

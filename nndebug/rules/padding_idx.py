"""PADDING_IDX_ON_REAL_IDS: an embedding's ``padding_idx`` on ids that are not padding.

Read from ``run.observed.padding_lookups`` (``nndebug.monitor.padding_ids``): an embedding
with a padding_idx p that is given one id per example (ids of shape (B,) or (B, 1): there is
no sequence to pad) with p among them. Row p of its table is zero and never updated, so
every example with id p is computed from a zero vector: that id is never learned.
"""
from ..findings import Finding
from .context import fmt, judged_only
from .graph import rule

MIN_LOOKUPS = 2        # [design] recorded lookups before the ids' shape counts as the usual one


def one_id_per_example(shape):
    return len(shape) == 1 or (len(shape) == 2 and shape[1] == 1)


@rule(produces="PADDING_IDX_ON_REAL_IDS", explains={"LOSS_PLATEAU", "LOSS_AT_CHANCE"})
def padding_idx_on_real_ids(ctx):
    observed = getattr(ctx.run, "observed", None)
    lookups = getattr(observed, "padding_lookups", None) or []
    by_layer = {}
    for lookup in judged_only(ctx, lookups):
        by_layer.setdefault(lookup.layer, []).append(lookup)
    findings = []
    for layer, seen in by_layer.items():
        single = [s for s in seen if one_id_per_example(s.ids_shape)]
        if len(seen) < MIN_LOOKUPS or len(single) < len(seen) or \
                not any(s.padding_count for s in single):
            continue
        ids = sum(s.ids_shape[0] for s in single)
        pads = sum(s.padding_count for s in single)
        first = single[0]
        findings.append(Finding(
            code="PADDING_IDX_ON_REAL_IDS", severity="warning", where=layer, step=first.step,
            message=f"{layer} is an embedding with padding_idx={first.padding_idx}, but it is "
                    f"given one id per example (ids of shape {tuple(first.ids_shape)}): there is "
                    f"nothing to pad, and id {first.padding_idx} is a real one "
                    f"({fmt(100 * pads / ids)}% of the {ids} ids seen). Its row stays zero and "
                    "is never trained, so those examples are computed from a zero vector.",
            evidence={"padding_idx": first.padding_idx, "ids_shape": list(first.ids_shape),
                      "padding_ids": pads, "ids_seen": ids, "lookups": len(single)},
            fix=f"Drop padding_idx from {layer} (or shift the real ids by one and keep 0 for "
                "padding) unless that id really is padding."))
    return findings or None

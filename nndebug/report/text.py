"""The text report of a watched run: what is wrong, the numbers behind it, what to do."""
import math
import textwrap

import numpy as np


def loss_summary(run):
    _, losses = run.loss_array()
    finite = losses[np.isfinite(losses)]
    out = {"steps": int(run.n_steps), "recorded_steps": len(run.records)}
    if finite.size:
        k = max(1, min(10, finite.size // 10))
        out.update(first=float(np.median(finite[:k])), last=float(np.median(finite[-k:])),
                   best=float(np.min(finite)))
    if not np.all(np.isfinite(losses)):
        out["nan_steps"] = int((~np.isfinite(losses)).sum())
    _, val = run.val_array()
    if val.size:
        out["val_last"] = float(val[-1])
    return out


def _fmt(value):
    if isinstance(value, float):
        if not math.isfinite(value):
            return str(value)
        return f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        shown = ", ".join(_fmt(v) for v in list(value)[:6])
        return "[" + shown + (", ..." if len(value) > 6 else "") + "]"
    if isinstance(value, dict):
        items = list(value.items())
        shown = ", ".join(f"{k}: {_fmt(v)}" for k, v in items[:6])
        return "{" + shown + (", ..." if len(items) > 6 else "") + "}"
    if isinstance(value, np.generic):
        return _fmt(value.item())
    return str(value)


def render_findings(findings, width=88):
    """The findings as an indented list (message, evidence, fix)."""
    lines = []
    for f in findings:
        lines.append(f.headline())
        wrap = lambda label, text: textwrap.wrap(text, width, initial_indent=" " * 8 + label,
                                                 subsequent_indent=" " * (8 + len(label)))
        lines += wrap("", f.message)
        if f.evidence:
            lines += wrap("evidence: ", "; ".join(f"{k}={_fmt(v)}" for k, v in f.evidence.items()))
        if f.fix:
            lines += wrap("fix: ", f.fix)
    return "\n".join(lines)


def layer_table(run):
    """One row per measured layer: activation statistics and, for layers with weights,
    gradient norm and update/weight ratio (medians over the recorded steps)."""
    rows = [("layer", "type", "act mean", "act std", "dead/sat", "grad |g|", "update/w")]
    params = {p.name: i for i, p in enumerate(run.params)}
    grads = run.matrix("grad_norm")
    upd, norm = run.matrix("update_norm"), run.matrix("param_norm")
    for layer in run.layers:
        stat = lambda s: _median(run.layer_series(layer.name, s)[1])
        special = stat("dead") if layer.kind == "relu" else \
            stat("saturated") if layer.kind in ("tanh", "sigmoid") else None
        weight = _layer_weight(params, layer.name)
        g = u = None
        if weight is not None and grads.size:
            g = _median(grads[:, weight])
            with np.errstate(all="ignore"):
                u = _median(upd[:, weight] / norm[:, weight]) if upd.size else None
        rows.append((layer.name or "(model)", layer.type, _num(stat("mean")), _num(stat("std")),
                     "" if special is None else f"{special:.0%}", _num(g), _num(u)))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows)


def _layer_weight(params, layer_name):
    """Index of a layer's weight: its ``weight``, else its first own parameter named like one
    (a recurrent layer's ``weight_ih_l0``, attention's ``in_proj_weight``)."""
    prefix = f"{layer_name}." if layer_name else ""
    if prefix + "weight" in params:
        return params[prefix + "weight"]
    for name, index in params.items():
        own = name[len(prefix):] if name.startswith(prefix) else ""
        if own and "." not in own and "weight" in own:
            return index
    return None


def _median(values):
    values = np.asarray(values, float)
    values = values[np.isfinite(values)]
    return float(np.median(values)) if values.size else None


def _num(value):
    return "" if value is None else f"{value:.3g}"


def render(run, findings, title=None):
    s = loss_summary(run)
    problems = [f for f in findings if f.severity in ("warning", "error")]
    lines = [title or f"nndebug watch report ({run.framework} model)",
             f"{s['steps']} steps, {s['recorded_steps']} recorded in detail"]
    if "first" in s:
        loss = f"loss {s['first']:.4g} -> {s['last']:.4g} (best {s['best']:.4g})"
        if "nan_steps" in s:
            loss += f", NaN/Inf at {s['nan_steps']} steps"
        if "val_last" in s:
            loss += f", last validation loss {s['val_last']:.4g}"
        lines.append(loss)
    lines.append("")
    if problems:
        lines.append(f"{len(problems)} problem(s) found, most important first:")
    else:
        lines.append("No problems found: healthy run.")
    if findings:
        lines.append(render_findings(findings))
    if run.layers and run.records:
        lines += ["", "Layers (medians over the recorded steps):", layer_table(run)]
    return "\n".join(lines)

"""compare: run the same network in minigrad and in PyTorch, and find where they part.

    cmp = nndebug.compare(minigrad_model, torch_model, inputs, targets, loss_fn)
    cmp.first_divergence   # "2" - the module where outputs or gradients first disagree
    print(cmp)             # one row per module: output, grad_output, grad_input, param grads

Both models must hold the same weights (``minigrad.interop.from_torch`` makes such a
pair). Each runs as a private float64 copy, so float32 rounding does not blur the
comparison and neither model is changed. Per module call, matched by qualified name
and call number, the maximum absolute differences are recorded of its outputs, of
the gradient arriving at its outputs (grad_output), of the gradient it passes to its
inputs (grad_input) and of its own parameters' gradients.

``first_divergence``:
* the first module, in the order calls finish, whose output differs (a forward bug);
* else, going backward from the loss, the first module whose grad_output still agrees
  but whose grad_input or parameter gradients do not (a backward bug) - the innermost
  one, not the container around it;
* ``"(loss)"`` when the models agree but the two loss functions do not; None if all agree.

``loss_fn``: one callable that works on both frameworks' tensors (``lambda o, t: ((o -
t) ** 2).mean()``), a pair ``(minigrad_loss, torch_loss)``, or a loss module of either
framework (``torch.nn.CrossEntropyLoss()``), whose counterpart with the same options
is built from the other framework's ``nn``.

Dropout layers are compared in eval mode: two frameworks' generators cannot draw the
same mask, and a mask difference is not a bug.
"""
import dataclasses
import inspect

import numpy as np

from . import validation
from .adapters import adapt

LOSS_ROW = "(loss)"


@dataclasses.dataclass
class CompareRow:
    """Max |minigrad - torch| for one module call (None where one side has nothing)."""

    module: str
    module_type: str
    index: int
    output: "float | None"
    grad_output: "float | None"
    grad_input: "float | None"
    params: dict                      # own parameter name -> max abs diff of its gradient
    agrees: bool = True
    scale: float = 0.0                # size of the values compared (for the tolerance)


@dataclasses.dataclass
class CompareReport:
    first_divergence: "str | None"
    rows: list
    loss_minigrad: float
    loss_torch: float
    weight_diff: float
    notes: list = dataclasses.field(default_factory=list)
    reason: str = ""

    @property
    def agree(self):
        return self.first_divergence is None

    def _repr_html_(self):
        """Jupyter shows the verdict, the findings and the plot inline."""
        from .report.html import result_html
        return result_html(self)

    def __str__(self):
        if self.first_divergence is None:
            head = "compare: minigrad and torch agree on every output and gradient"
        else:
            head = f"compare: first divergence at {self._label(self.first_divergence)} - {self.reason}"
        lines = [head, f"  loss: minigrad {self.loss_minigrad:.10g}, torch {self.loss_torch:.10g}"]
        table = [("module", "type", "output", "grad_output", "grad_input", "param grads", "")]
        for r in self.rows:
            params = ", ".join(f"{n} {_fmt(v)}" for n, v in r.params.items()) or "-"
            name = r.module if r.index == 0 else f"{r.module} (call {r.index + 1})"
            table.append((name or '""', r.module_type, _fmt(r.output), _fmt(r.grad_output),
                          _fmt(r.grad_input), params, "" if r.agrees else "<-"))
        widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
        for row in table:
            lines.append("  " + "  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip())
        lines.extend(f"  note: {n}" for n in self.notes)
        return "\n".join(lines)

    @staticmethod
    def _label(name):
        return "the loss function" if name == LOSS_ROW else \
            (f"module '{name}'" if name else "the root module")


def _fmt(value):
    return "-" if value is None else f"{value:.2e}"


def compare(minigrad_model, torch_model, inputs, targets, loss_fn, *, rtol=1e-7, atol=1e-10):
    """Compare the two models module by module; returns a ``CompareReport``."""
    rtol, atol = validation.tolerance(rtol, "rtol"), validation.tolerance(atol, "atol")
    first, second = adapt(minigrad_model), adapt(torch_model)
    if {first.framework, second.framework} != {"minigrad", "torch"}:
        raise TypeError(f"compare needs one minigrad model and one torch model, got "
                        f"{first.framework} and {second.framework}")
    mg_adapter, torch_adapter = (first, second) if first.framework == "minigrad" else (second, first)
    mg_loss, torch_loss = _losses(loss_fn)
    x, y = _host(inputs), _host(targets)
    for value, name in ((x, "inputs"), (y, "targets")):
        validation.samples(mg_adapter, value, name)
        _require_finite(value, name)
    notes = []
    with mg_adapter.preserved(), torch_adapter.preserved():
        mg_work, torch_work = mg_adapter.private_copy(np.float64), torch_adapter.private_copy(np.float64)
        for work in (mg_work, torch_work):
            for _, module in work.named_modules():
                if "Dropout" in work.module_type(module) and module.training:
                    module.training = False
                    if "dropout" not in " ".join(notes):
                        notes.append("dropout layers were compared in eval mode (the two frameworks "
                                     "cannot draw the same mask)")
                if getattr(module, "inplace", False) is True:
                    module.inplace = False   # in-place ops hide grad_output from tensor hooks
        mg_names = [n for n, _ in mg_work.named_parameters()]
        torch_names = [n for n, _ in torch_work.named_parameters()]
        if mg_names != torch_names:
            only_mg = sorted(set(mg_names) - set(torch_names))
            only_torch = sorted(set(torch_names) - set(mg_names))
            raise ValueError(f"the two models do not have the same parameters: only in minigrad "
                             f"{only_mg or '-'}, only in torch {only_torch or '-'}; build one from the "
                             "other with minigrad.interop.from_torch / to_torch")
        _require_same_shapes(mg_work, torch_work)
        with mg_work.default_dtype(np.float64), torch_work.default_dtype(np.float64):
            mg_trace = mg_work.trace(x, y, mg_loss)
            torch_trace = torch_work.trace(x, y, torch_loss)
    weight_diff = max([_maxdiff(mg_trace.params[n], torch_trace.params[n]) or 0.0
                       for n in mg_trace.params] or [0.0])
    if weight_diff > atol + rtol * max([np.max(np.abs(v)) for v in mg_trace.params.values()
                                        if np.size(v)] or [0.0]):
        notes.append(f"the models' weights differ (up to {weight_diff:.2e}); compare expects the "
                     "same weights (minigrad.interop.from_torch copies them)")
    rows, first_divergence, reason = _rows(mg_trace, torch_trace, rtol, atol)
    return CompareReport(first_divergence=first_divergence, rows=rows, loss_minigrad=mg_trace.loss,
                         loss_torch=torch_trace.loss, weight_diff=weight_diff, notes=notes,
                         reason=reason)


def _require_finite(value, name):
    """NaN or Inf in the data make every difference NaN, and NaN compares as "no difference":
    refuse them rather than report agreement."""
    leaves = value if isinstance(value, (tuple, list)) else \
        list(value.values()) if isinstance(value, dict) else [value]
    for leaf in leaves:
        array = np.asarray(leaf)
        if array.dtype.kind == "f" and not np.all(np.isfinite(array)):
            raise ValueError(f"{name} contain NaN or Inf values: every difference would be NaN "
                             "and nothing could be compared; compare on finite data")


def _require_same_shapes(mg_work, torch_work):
    """Layers of different sizes (Linear(6, 8) against Linear(6, 9)) are two different
    networks, not a divergence to report."""
    torch_shapes = {n: tuple(p.shape) for n, p in torch_work.named_parameters()}
    for name, p in mg_work.named_parameters():
        mine = tuple(p.shape)
        if torch_shapes.get(name, mine) != mine:
            raise ValueError(f"the two models differ in size: parameter {name} has shape {mine} "
                             f"in minigrad but {torch_shapes[name]} in torch; build one from "
                             "the other with minigrad.interop.from_torch / to_torch")


def _rows(mg_trace, torch_trace, rtol, atol):
    torch_calls = {(c.name, c.index): c for c in torch_trace.calls}
    rows, pairs = [], []
    for call in mg_trace.calls:
        other = torch_calls.get((call.name, call.index))
        if other is None:
            continue
        own = {n.rsplit(".", 1)[-1]: n for n in mg_trace.grads
               if n.rpartition(".")[0] == call.name}
        params = {short: _maxdiff(mg_trace.grads[full], torch_trace.grads.get(full))
                  for short, full in own.items()}
        row = CompareRow(module=call.name, module_type=call.module_type, index=call.index,
                         output=_listdiff(call.outputs, other.outputs),
                         grad_output=_listdiff(call.grad_outputs, other.grad_outputs),
                         grad_input=_listdiff(call.grad_inputs, other.grad_inputs), params=params)
        rows.append(row)
        pairs.append((call, other, row))

    def bad(diff, *arrays):
        if diff is None:
            return False
        scale = max([float(np.max(np.abs(a))) for group in arrays for a in group
                     if a is not None and np.size(a)] or [0.0])
        return diff > atol + rtol * scale

    forward_bad, backward_bad = [], []
    for call, other, row in pairs:
        out_bad = bad(row.output, call.outputs)
        grad_out_bad = bad(row.grad_output, call.grad_outputs)
        grad_in_bad = bad(row.grad_input, call.grad_inputs)
        param_bad = any(bad(d, [mg_trace.grads[_full(call.name, n)]]) for n, d in row.params.items())
        row.agrees = not (out_bad or grad_out_bad or grad_in_bad or param_bad)
        if out_bad:
            forward_bad.append((call, row))
        elif not grad_out_bad and (grad_in_bad or param_bad):
            backward_bad.append((call, row))
    if forward_bad:
        call, row = min(forward_bad, key=lambda cr: cr[0].order)
        return rows, call.name, (f"its output differs by up to {row.output:.2e} while everything it "
                                 "received agrees (a forward difference)")
    loss_bad = abs(mg_trace.loss - torch_trace.loss) > atol + rtol * abs(torch_trace.loss)
    grad_at_output = _listdiff(mg_trace.output_grads, torch_trace.output_grads)
    if loss_bad or bad(grad_at_output, mg_trace.output_grads):
        return rows, LOSS_ROW, (f"the model outputs agree but the losses ({mg_trace.loss:.10g} vs "
                                f"{torch_trace.loss:.10g}) or their gradients (up to "
                                f"{(grad_at_output or 0):.2e}) do not")
    if backward_bad:
        positions = {id(c): i for i, c in enumerate(mg_trace.calls)}
        inner = set()
        for call, _ in backward_bad:
            parent = call.parent
            while parent is not None:
                inner.add(parent)
                parent = mg_trace.calls[parent].parent
        innermost = [(c, r) for c, r in backward_bad if positions[id(c)] not in inner]
        call, row = max(innermost, key=lambda cr: cr[0].order)
        what = []
        if row.grad_input is not None and bad(row.grad_input, call.grad_inputs):
            what.append(f"grad_input (by up to {row.grad_input:.2e})")
        what += [f"{n} gradient (by up to {d:.2e})" for n, d in row.params.items()
                 if bad(d, [mg_trace.grads[_full(call.name, n)]])]
        return rows, call.name, (f"the gradient arriving at its output agrees, but not its "
                                 f"{' nor its '.join(what)}: a backward difference")
    return rows, None, ""


def _full(module, short):
    return f"{module}.{short}" if module else short


def _maxdiff(a, b):
    if a is None or b is None:
        return None
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        return float("inf")
    return float(np.max(np.abs(a - b))) if a.size else 0.0


def _listdiff(first, second):
    diffs = [_maxdiff(a, b) for a, b in zip(first, second)]
    diffs = [d for d in diffs if d is not None]
    if len(first) != len(second):
        return float("inf")
    return max(diffs) if diffs else None


def _host(value):
    """Inputs/targets as NumPy (either framework's tensors accepted), structure kept."""
    if isinstance(value, (tuple, list)):
        return type(value)(_host(v) for v in value)
    if isinstance(value, dict):
        return {k: _host(v) for k, v in value.items()}
    if hasattr(value, "detach") and hasattr(value, "cpu"):
        return value.detach().cpu().numpy()
    if hasattr(value, "data") and isinstance(getattr(value, "data"), np.ndarray):
        return np.array(value.data)
    return np.asarray(value) if value is not None else None


# --- the loss on both sides ----------------------------------------------------------------

def _losses(loss_fn):
    """(minigrad loss, torch loss) from a pair, a loss module of either side, or a function."""
    if isinstance(loss_fn, (tuple, list)):
        if len(loss_fn) != 2 or not all(callable(f) for f in loss_fn):
            raise TypeError("loss_fn as a pair must be (minigrad_loss, torch_loss), two callables")
        a, b = loss_fn
        if _framework_of(a) == "torch" or _framework_of(b) == "minigrad":
            a, b = b, a
        return a, b
    if not callable(loss_fn):
        raise TypeError(f"loss_fn must be callable or a pair (minigrad_loss, torch_loss), got "
                        f"{type(loss_fn).__name__}")
    side = _framework_of(loss_fn)
    if side == "torch":
        return _counterpart(loss_fn, "minigrad"), loss_fn
    if side == "minigrad":
        return loss_fn, _counterpart(loss_fn, "torch")
    return loss_fn, loss_fn


def _framework_of(fn):
    module = type(fn).__module__ or ""
    if module.startswith("torch"):
        return "torch"
    if module.startswith("minigrad"):
        return "minigrad"
    return None


_OPTIONS = ("reduction", "ignore_index", "label_smoothing", "weight", "pos_weight", "eps", "beta",
            "delta")


def _counterpart(loss, framework):
    """The same loss class with the same options, from the other framework's nn."""
    if framework == "minigrad":
        import minigrad.nn as other_nn
    else:
        import torch.nn as other_nn
    name = type(loss).__name__
    cls = getattr(other_nn, name, None)
    if cls is None:
        raise TypeError(f"{framework} has no {name}; pass loss_fn=(minigrad_loss, torch_loss)")
    accepted = inspect.signature(cls.__init__).parameters
    kwargs = {}
    for option in _OPTIONS:
        if option in accepted and hasattr(loss, option):
            value = getattr(loss, option)
            if value is not None and option in ("weight", "pos_weight"):
                value = _convert(value, framework)
            kwargs[option] = value
    return cls(**kwargs)


def _convert(value, framework):
    array = _host(value)
    if framework == "torch":
        import torch
        return torch.as_tensor(array)
    import minigrad as mg
    return mg.tensor(array, dtype=array.dtype)

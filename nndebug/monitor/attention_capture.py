"""Attention weights made by a plain softmax call (torch): ``scores.softmax(-1)``,
``F.softmax(scores, dim=-1)``, as nanoGPT-style attention writes them.

An ``nn.Softmax`` module is a layer: its output is measured with the other layers
(``statistics.attention_peaks``). A softmax *function* is not a layer, so while a step is
recorded a ``TorchFunctionMode`` sees every torch function call and measures the result of
each softmax over the last dimension of a 3-D or larger tensor that requires a gradient
(attention weights (B, [H,] T_query, T_key) in training). The measurements are reductions
computed where the tensor lives; they ride along with the step's one host transfer and land
in ``record.activations["<module>.softmax"]``, named after the module that made the call.

The same mode hands each call of a loss function (``F.cross_entropy``, ``F.nll_loss``, the
binary cross-entropies, ``F.mse_loss``, ``F.l1_loss``, ``F.smooth_l1_loss``, ``F.huber_loss``,
``F.ctc_loss``, ...) to ``on_loss_call``
(around.py passes it on to the loss capture): a loss called as a function, not a module,
is seen before its backward frees what it saved.

Only the first call per module and step is kept. minigrad has no such mode: its functional
softmax stays unseen. A model whose first ``STEPS_TO_FIND_A_USE`` recorded steps call
neither such a softmax nor a loss function gets the mode no more: every torch call of a
recorded step passes through its Python ``__torch_function__`` (7% of a recorded step of a
12-block residual MLP), and a model does not start calling them later. The mode is pushed at the first module call of a recorded step and
popped when the optimizer steps (when the monitor knows the optimizer) or when the step is
disarmed; if something else was pushed on top meanwhile, ours stays under it, switched off,
until it is on top again (popping another's mode would break it).
"""
import contextlib
import functools

from .function_modes import OwnedModes
from .statistics import attention_peaks

ATTENTION_SUFFIX = ".softmax"
STEPS_TO_FIND_A_USE = 3     # [design] recorded steps (0, 1, 2) the mode runs before it is
                            # dropped for a model that showed it no softmax and no loss call


class AttentionCapture:
    def __init__(self, adapter, current_module, on_error=lambda error: None, on_loss_call=None):
        """``current_module()``: the qualified name of the registered module running now
        ("" for the model itself), or None inside a softmax layer (measured as a layer)."""
        self.adapter, self.current_module, self.on_error = adapter, current_module, on_error
        self.on_loss_call = on_loss_call      # (name, args, kwargs) of a loss function call
        self.enabled = adapter.framework == "torch"
        self.found = {}           # layer name -> [(stat, device value)] this step
        self.modes = OwnedModes()  # the mode of this step, and retired ones (function_modes.py)
        self.waiting = False      # armed, the mode not pushed yet (see start)
        self.steps_seen = 0       # recorded steps the mode ran through
        self.used = False         # it measured a softmax, or handed on a loss call
        self.scales = None        # attention_scales.AttentionScales, set by around.py (batch 79)
        self.errors = None        # handwritten_errors.HandwrittenErrors, set by around.py
        self.ranked = None        # ranked_losses.RankedLosses, set by around.py
        self.soft = None          # soft_cross_entropies.SoftCrossEntropies, set by around.py

    def arm(self):
        """The coming step is recorded: the mode goes on at its first module call (start)."""
        self._drop_stale()
        self.found = {}
        if self.scales is not None:
            self.scales.arm()             # batch 79: its first recorded steps only
        if self.steps_seen >= STEPS_TO_FIND_A_USE and not self.used:
            self.enabled = False          # nothing for it in this model (see the module doc)
        self.waiting = self.enabled and self.modes.current is None and not self.modes.stale

    def start(self):
        """The recorded step's first module call (its forward): push the mode now, not at
        ``arm``, so that loading the batch and zero_grad run without it."""
        self.waiting = False
        self.steps_seen += 1
        try:
            self.modes.push(_softmax_mode(self._on_softmax, self._on_loss_call,
                                          self._on_kernel, self._on_arithmetic))
        except Exception as error:
            self.modes.current, self.enabled = None, False
            self.on_error(error)

    def disarm(self):
        """Mode off: when the step ends, or earlier, when the optimizer steps (the forward
        and the loss call are over by then; the optimizer's many small calls need not pay
        for the mode)."""
        self.waiting = False
        try:
            self.modes.retire()
        except Exception as error:
            self.enabled = False
            self.on_error(error)

    def quiet(self):
        """A context in which nndebug's own measurements skip the mode (while it is on, each
        torch call would otherwise pass through its Python ``__torch_function__``)."""
        if self.modes.current is None:
            return contextlib.nullcontext()
        import torch
        return torch._C.DisableTorchFunction()

    def _drop_stale(self):
        """Pop our modes that are on top of the stack. One under a mode somebody pushed
        later stays (popping would remove theirs), measures nothing, and is popped as soon
        as it is on top again; no new one is pushed meanwhile."""
        try:
            self.modes.drop_stale()
        except Exception as error:
            self.enabled = False
            self.on_error(error)

    def _on_softmax(self, result, dim):
        if not getattr(result, "requires_grad", False) or result.ndim < 3:
            return
        if dim not in (-1, result.ndim - 1) or result.shape[-1] < 2:
            return
        site = self.current_module()
        if site is None:
            return                        # inside an nn.Softmax layer: measured as a layer
        name = (site or "model") + ATTENTION_SUFFIX
        if name in self.found:
            return
        weights = result.detach()
        self.used = True
        if self.scales is not None:
            self.scales.on_softmax(name, result)   # its logits' factors (batch 79)
        self.found[name] = [(stat, compute()) for stat, compute in
                            attention_peaks(self.adapter.xp, weights)]

    def _on_kernel(self, args, kwargs):
        """A ``scaled_dot_product_attention`` call (batch 79: its logits' factors)."""
        site = self.current_module()
        if self.scales is not None and site is not None:
            self.scales.on_kernel((site or "model") + ATTENTION_SUFFIX, args, kwargs)

    def _on_arithmetic(self, kind, func, args, kwargs, result):
        """A subtraction, or a square or absolute value that may be of one: a regression
        error written by hand (handwritten_errors.py); a loss function's result, or a
        ranking that may be of its per-sample losses (ranked_losses.py)."""
        if kind == "loss":
            if self.ranked is not None:
                self.ranked.on_loss(kwargs, result)
            return
        if kind == "ranking":
            if self.ranked is not None and self.ranked.on_ranking(args):
                self.used = True
            return
        if kind == "log_softmax":         # a soft cross-entropy's (soft_cross_entropies.py)
            if self.soft is not None:
                self.soft.on_log_softmax(result)
            return
        if self.soft is not None and func.__name__ in ("mul", "__mul__", "__rmul__") and \
                self.soft.on_product(args):
            return
        if self.errors is None or not args:
            return
        if kind == "subtraction":
            self.errors.on_subtraction(args, result)
        elif _squared(func, args, kwargs):
            if self.errors.on_error("squared", args[0]):
                self.used = True
        elif func.__name__ in ("abs", "__abs__") and self.errors.on_error("absolute", args[0]):
            self.used = True

    def _on_loss_call(self, name, args, kwargs):
        if self.on_loss_call is not None and self.on_loss_call(name, args, kwargs):
            self.used = True

    def pack(self, packet):
        for name, stats in self.found.items():
            for stat, value in stats:
                packet.add(("attention", name, stat), value)

    def take(self, values, record):
        for name, stats in self.found.items():
            for stat, _ in stats:
                v = values.get(("attention", name, stat))
                if v is not None:
                    record.activations.setdefault(name, {})[stat] = float(v[0])
        self.found = {}


def _squared(func, args, kwargs):
    """Whether this call of a power, square or product squares its first argument."""
    name = func.__name__
    if name == "square":
        return True
    if name in ("pow", "__pow__"):
        exponent = args[1] if len(args) > 1 else kwargs.get("exponent")
        return isinstance(exponent, (int, float)) and exponent == 2
    if name in ("mul", "__mul__"):
        return len(args) > 1 and args[0] is args[1]
    return False


def _softmax_mode(on_softmax, on_loss_call=None, on_kernel=None, on_arithmetic=None):
    """A fresh mode (one per recorded step; the class is made once per process)."""
    return _softmax_watch_class()(on_softmax, on_loss_call, on_kernel, on_arithmetic)


@functools.lru_cache(maxsize=None)
def _softmax_watch_class():
    import torch
    from torch.overrides import TorchFunctionMode
    softmaxes = {torch.softmax, torch.nn.functional.softmax, torch.Tensor.softmax}
    functional = torch.nn.functional
    losses = {functional.cross_entropy, functional.nll_loss, functional.binary_cross_entropy,
              functional.binary_cross_entropy_with_logits, functional.mse_loss,
              functional.l1_loss, functional.smooth_l1_loss, functional.huber_loss,
              functional.multilabel_soft_margin_loss, functional.ctc_loss,
              functional.multilabel_margin_loss,   # multi-hot rows read as ids (batch 54)
              functional.kl_div}   # kl_div: paired with the labels' loss only (batch 55)
    kernels = {functional.scaled_dot_product_attention}   # batch 79: its logits' factors
    # a regression error written by hand (handwritten_errors.py, batch 126): a subtraction,
    # then a square or an absolute value of its result
    subtractions = {torch.Tensor.__sub__, torch.Tensor.__rsub__, torch.sub, torch.Tensor.sub,
                    torch.subtract}
    arithmetic = subtractions | {torch.Tensor.__pow__, torch.pow, torch.Tensor.pow,
                                 torch.square, torch.Tensor.square, torch.Tensor.__mul__,
                                 torch.mul, torch.Tensor.mul, torch.abs, torch.Tensor.abs,
                                 torch.Tensor.__abs__}
    arithmetic |= {torch.Tensor.__rmul__}   # target * log_softmax, either side (batch 192)
    log_softmaxes = {torch.log_softmax, functional.log_softmax, torch.Tensor.log_softmax}
    # per-sample losses ranked to choose rows (ranked_losses.py, batch 135)
    rankings = {torch.argsort, torch.Tensor.argsort, torch.sort, torch.Tensor.sort,
                torch.topk, torch.Tensor.topk}

    class SoftmaxWatch(TorchFunctionMode):
        active = True

        def __init__(self, on_softmax, on_loss_call, on_kernel=None, on_arithmetic=None):
            super().__init__()
            self.on_softmax, self.on_loss_call = on_softmax, on_loss_call
            self.on_kernel, self.on_arithmetic = on_kernel, on_arithmetic

        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            result = func(*args, **kwargs)
            if self.active and func in softmaxes:
                try:
                    dim = kwargs.get("dim", args[1] if len(args) > 1 else None)
                    self.on_softmax(result, dim)
                except Exception:      # a measurement never breaks the user's step
                    self.active = False
            elif self.active and self.on_kernel is not None and func in kernels:
                try:
                    self.on_kernel(args, kwargs)
                except Exception:
                    self.active = False
            elif self.active and self.on_loss_call is not None and func in losses:
                try:
                    self.on_loss_call(func.__name__, args, kwargs)
                    if self.on_arithmetic is not None:
                        self.on_arithmetic("loss", func, args, kwargs, result)
                except Exception:
                    self.active = False
            elif self.active and self.on_arithmetic is not None and func in arithmetic:
                try:
                    self.on_arithmetic("subtraction" if func in subtractions else "error",
                                       func, args, kwargs, result)
                except Exception:
                    self.active = False
            elif self.active and self.on_arithmetic is not None and func in log_softmaxes:
                try:
                    self.on_arithmetic("log_softmax", func, args, kwargs, result)
                except Exception:
                    self.active = False
            elif self.active and self.on_arithmetic is not None and func in rankings:
                try:
                    self.on_arithmetic("ranking", func, args, kwargs, result)
                except Exception:
                    self.active = False
            return result
    return SoftmaxWatch



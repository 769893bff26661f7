"""What one optimizer step did to a few sampled weight entries: the weight before, its
gradient, the weight after (WEIGHT_DECAY_SIGN_INVERTED and GRADIENTS_ACCUMULATING from a
velocity that never decays, ``nndebug.rules.handwritten_updates``; real-bug batch 99:
optimizers and parameter updates written by hand).

An optimizer written by hand can get its update rule wrong in ways the loss shows only as
"worse training": a weight-decay penalty subtracted instead of added (andersbll/deeppy#17,
chainer/chainer#261), a momentum whose coefficient sits on the wrong term so the velocity
is the sum of every gradient so far (ooples/AiDotNet#2008). Both are visible in the update
itself, entry by entry: a plain update is a linear function of the gradient and the weight
(``delta = a * g + b * w``, with ``b = -lr * weight_decay <= 0``); a heavy-ball update is a
linear function of the previous update and the gradient (``delta = c * delta_prev + a * g``,
with ``c`` the momentum, below 1).

What is read (torch: a step pre-hook and post-hook on the watched optimizer when it is not one
of torch's own - ``written_by_torch`` - for its first ``WINDOW_STEPS`` steps): ``SAMPLED`` fixed entries of each of the ``MAX_FOLLOWED`` largest
floating weights of 2+ dimensions, before the step (weight and .grad) and after it (weight),
each copied into a preallocated row (one small copy each, no host read during training).

When findings are asked for, the rows come to the host once and are fitted
(``update_fits``); kept in ``run.observed.update_fits`` as ``(parameter name, steps fitted,
share of steps whose update is a linear function of gradient and weight, median a, median
b, share of those steps with b > 0, pairs fitted, share of pairs whose update is a linear
function of the previous update and the gradient, median c)``.

Cost: three small copies per followed weight per optimizer step in the window (views of the
weights made once; the gradient's view made per step, as zero_grad may give a new tensor),
the fits once at findings (2 x 2 normal equations for all steps at once). Measured on the
digits MLP (two followed weights): 13-17 us per optimizer step for the two hooks and 4 ms
for the fits of 200 steps; the window was then cut to 48 steps, so a short healthy run pays
the copies on its first 48 steps only and about 1 ms for the fits. (A first version that
built the weight views at every step cost 386 us a step.)
"""
import numpy as np

from .pruned_weights import sampled_entries

SAMPLED = 256        # [design] entries per weight: a least-squares fit of 2 coefficients on
                     # 256 exact (noise-free) equations is determined to float precision
WINDOW_STEPS = 48    # [design] optimizer steps followed: the update rule is the same at every
                     # step, so the first 48 show it (the rules want 20 fitted steps); rows
                     # cost 3 x 256 floats a weight a step. 48, not the whole of a short run:
                     # the copies cost ~15 us a step and the fits ~20 us a step at findings
                     # (measured on the digits MLP), a cost every healthy run would pay
MAX_FOLLOWED = 4     # [design] the largest weights: an optimizer applies one rule to all
IDENTIFIABLE = 1e-2  # [design] the two regressors, scaled to unit norm, must span two
                     # directions (smallest singular value >= 1% of the largest): weights
                     # all equal (a constant init) give gradients parallel to them, and the
                     # split of the update between the two is then arbitrary
LINEAR_FIT = 0.999   # [design] R^2 of an update that IS that linear function: float32
                     # rounding leaves about 1 - 1e-10; Adam's g / sqrt(v) or momentum's
                     # history, fitted on (g, w), leave 0.3-0.98 on the digits MLP (measured)


class UpdateSamples:
    def __init__(self, adapter, observed, model, optimizer, on_error):
        self.observed, self.on_error = observed, on_error
        self._followed = []     # [(name, parameter, stride, count, rows w, rows g, rows after)]
        self._handles = []
        self._steps = 0
        self._read_at = 0
        self._mine = []         # the rows this monitor wrote last
        pre = getattr(optimizer, "register_step_pre_hook", None)
        post = getattr(optimizer, "register_step_post_hook", None)
        if adapter.framework != "torch" or pre is None or post is None or \
                written_by_torch(optimizer):
            return
        try:
            self._followed = _followed_weights(model)
            if self._followed:
                self._handles = [pre(self._before_step), post(self._after_step)]
        except Exception as error:        # never break the user's watch
            self._followed = []
            on_error(error)

    def _before_step(self, optimizer, args, kwargs):
        if self._steps >= WINDOW_STEPS or not self._followed:
            return None
        try:
            row = self._steps
            for _, p, stride, count, view, weights, grads, _ in self._followed:
                weights[row] = view
                grad = p.grad
                if grad is None or grad.shape != p.shape:
                    grads[row] = float("nan")
                else:
                    grads[row] = _sampled(grad.detach(), stride, count)
        except Exception as error:        # never break the user's step
            self._stop(error)
        return None

    def _after_step(self, optimizer, args, kwargs):
        if self._steps >= WINDOW_STEPS or not self._followed:
            return None
        try:
            row = self._steps
            for _, _, _, _, view, _, _, after in self._followed:
                after[row] = view
            self._steps += 1
        except Exception as error:        # never break the user's step
            self._stop(error)
        return None

    def _stop(self, error):
        self._followed = []
        self.on_error(error)

    def read(self):
        """The rows to the host (once per new steps), fitted."""
        steps = self._steps
        if not self._followed or steps < 3 or steps == self._read_at:
            return
        try:
            fits = []
            for name, _, _, _, _, weights, grads, after in self._followed:
                w = _host(weights[:steps])
                fits.append(update_fits(name, w, _host(grads[:steps]),
                                        _host(after[:steps]) - w))
            fits = [f for f in fits if f is not None]
            # rows a resumed run adopted from its checkpoint come first (long_run.CONTINUED);
            # this monitor's own rows, read again as its window fills, replace themselves
            kept = list(self.observed.update_fits)
            if self._mine and kept[-len(self._mine):] == self._mine:
                kept = kept[:-len(self._mine)]
            self.observed.update_fits = kept + fits
            self._mine = fits
            self._read_at = steps
        except Exception as error:        # never break the user's findings
            self.on_error(error)

    def close(self):
        self.read()
        for handle in self._handles:
            handle.remove()
        self._handles, self._followed = [], []


def written_by_torch(optimizer):
    """torch's own optimizers (``torch.optim.SGD``, ``Adam``, ...) apply their update rules as
    documented: a wrong rule is a hand-written one (a subclass of ``torch.optim.Optimizer``
    written by the user, or any other object with step hooks). Following them would cost
    every run with a built-in optimizer - most runs - about 10 M instructions on the healthy
    digits MLP (cachegrind: +38.3% against +34.6% without this observer), for a rule that
    cannot fire there: torch refuses a negative weight_decay, and a momentum of 1 in torch's
    SGD is .grad never cleared, which GRADIENTS_ACCUMULATING reads from the records."""
    return type(optimizer).__module__.split(".")[0] == "torch"


def _followed_weights(model):
    """[(name, parameter, stride, count, view of the sampled entries, rows of the weight
    before, of the gradient, of the weight after)]; on the CPU the view and rows are NumPy
    arrays (a row copy is about a microsecond), elsewhere device tensors (no host read)."""
    import torch
    weights = [(name, p) for name, p in model.named_parameters()
               if p.requires_grad and p.dim() >= 2 and p.is_floating_point() and p.numel() and
               p.is_contiguous()]
    weights = sorted(weights, key=lambda item: -item[1].numel())[:MAX_FOLLOWED]
    followed = []
    for name, p in weights:
        stride, count, view = sampled_entries(p, SAMPLED)   # shares the weight's storage
        rows = [torch.empty((WINDOW_STEPS, count), dtype=torch.float32, device=p.device)
                for _ in range(3)]
        if p.device.type == "cpu" and p.dtype == torch.float32:
            view, rows = view.numpy(), [r.numpy() for r in rows]
        followed.append((name, p, stride, count, view, *rows))
    return followed


def _sampled(grad, stride, count):
    """The sampled entries of a gradient (a fresh tensor each step under zero_grad's
    set_to_none): a NumPy view for a float32 gradient on the CPU (whose rows are NumPy, as
    ``_followed_weights`` makes them), a strided tensor view otherwise (a bfloat16 or float16
    model's rows stay float32 tensors: NumPy has no bfloat16, and a tensor row takes no
    NumPy array)."""
    import torch
    if grad.device.type == "cpu" and grad.dtype == torch.float32 and grad.is_contiguous():
        return grad.numpy().reshape(-1)[::stride][:count]
    return grad.reshape(-1)[::stride][:count]


def _host(rows):
    """Rows (a NumPy array, or a tensor on any device) as float64 NumPy."""
    if isinstance(rows, np.ndarray):
        return rows.astype(np.float64)
    return rows.double().cpu().numpy()


def _fits(first, second, target):
    """Per row k, the least-squares fit target[k] ~ x * first[k] + y * second[k]: arrays
    (x, y, R^2, fitted) - fitted False where the row has under 8 finite entries, no update,
    or two (nearly) parallel regressors. All rows at once (2 x 2 normal equations)."""
    ok = np.isfinite(first) & np.isfinite(second) & np.isfinite(target)
    first, second, target = (np.where(ok, a, 0.0) for a in (first, second, target))
    s11, s22, s12 = (first ** 2).sum(1), (second ** 2).sum(1), (first * second).sum(1)
    s1y, s2y, syy = (first * target).sum(1), (second * target).sum(1), (target ** 2).sum(1)
    with np.errstate(all="ignore"):
        cosine = np.abs(s12) / np.sqrt(s11 * s22)
        # singular values of the unit-norm design: sqrt(1 +- cosine)
        spread = np.sqrt((1 - cosine) / (1 + cosine))
        det = s11 * s22 - s12 ** 2
        x = (s22 * s1y - s12 * s2y) / det
        y = (s11 * s2y - s12 * s1y) / det
        r2 = 1.0 - (syy - x * s1y - y * s2y) / syy
    fitted = (ok.sum(1) >= 8) & (syy > 0) & (s11 > 0) & (s22 > 0) & \
        np.isfinite(spread) & (spread >= IDENTIFIABLE) & np.isfinite(r2)
    return x, y, r2, fitted


def _median(values):
    return float(np.median(values)) if len(values) else 0.0   # 0: nothing fitted (no NaN
                                                              # in a saved row)


def uphill_share(grads, deltas):
    """(steps compared, share of them whose update climbs the gradient): per step, the dot
    product of the sampled update and gradient entries. A descent step moves against the
    gradient (dot < 0): plain SGD always, Adam and RMSprop entry by entry (their per-entry
    scale is positive), heavy-ball momentum on most early steps (its velocity is a decayed sum
    of recent gradients, which point the same way while the loss falls). An update along the
    gradient raises the loss to first order (real-bug batch 322: a hand-written Nesterov step
    that adds its momentum term, so from the second step on each update climbs)."""
    ok = np.isfinite(grads) & np.isfinite(deltas)
    grads, deltas = np.where(ok, grads, 0.0), np.where(ok, deltas, 0.0)
    dots = (grads * deltas).sum(1)
    moved = (ok.sum(1) >= 8) & (np.abs(grads).sum(1) > 0) & (np.abs(deltas).sum(1) > 0)
    steps = int(moved.sum())
    return steps, float((dots[moved] > 0).mean()) if steps else 0.0


def update_fits(name, weights, grads, deltas):
    """(name, steps, linear share, median a, median b, share b > 0, pairs, memory share,
    median c, steps compared for direction, share of them climbing the gradient) from
    per-step rows of sampled weights, gradients and updates; None when no step moved. The
    medians are 0.0 when no step (pair) fitted."""
    a, b, r2, fitted = _fits(grads, weights, deltas)
    if not fitted.any():
        return None
    linear = fitted & (r2 >= LINEAR_FIT)
    steps = int(fitted.sum())
    c, _, r2_memory, paired = _fits(deltas[:-1], grads[1:], deltas[1:])
    remembered = paired & (r2_memory >= LINEAR_FIT)
    pairs = int(paired.sum())
    return (name, steps, float(linear.sum()) / steps, _median(a[linear]), _median(b[linear]),
            float((b[linear] > 0).mean()) if linear.any() else 0.0,
            pairs, float(remembered.sum()) / pairs if pairs else 0.0, _median(c[remembered]),
            *uphill_share(grads, deltas))

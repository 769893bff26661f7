"""Mixup whose labels are paired with other partners than its inputs
(MIXUP_PARTNERS_MISMATCHED, ``nndebug.rules.mixup_partners``).

A mixup step blends each input with a partner row, ``lam * x + (1 - lam) * x[perm]``, and
must blend the one-hot labels with the same partner. Drawn with a second shuffle (two
``randperm`` calls, two ``random_shuffle`` calls), the label's second class belongs to a
row the input contains nothing of. What is read: the soft targets' two largest classes in
each row (above the row's floor, so label smoothing is left aside) and their weights, and
the input rows. Class prototypes are fitted by least squares, ``input ~ target @ P + c``,
over every kept row; each mixed row is then explained by the best ordered pair of classes
(c1 with the larger weight, c2 with the smaller, ``w1 P[c1] + w2 P[c2] + c``). With right
partners both of the target's classes are the best pair's in many rows; with wrong ones
only one of them is (the other is a class the input does not hold), and the share of rows
matching both falls to chance among the rows matching one.

What it reads (torch only): the kept first training inputs (``first_training_inputs.py``)
paired with the kept targets (``run.observed.targets``), when the targets are 2-D float
rows of 4 to ``MAX_CLASSES`` classes that are distributions (each sums to 1) and many rows
hold two classes. Measured (NumPy) when
findings are asked for; kept as ``run.observed.mixup_partner_rows``: ``[(first step, mixed
rows, classes, rows whose best pair holds one of the target's two classes, rows whose best
pair holds both)]``. No per-step cost.
"""
import numpy as np

MIN_CLASSES = 4            # [design] with 2 or 3 classes the best pair is nearly forced
MAX_CLASSES = 32           # [design] pairs scored per row: classes squared
MINOR_WEIGHT = 0.15        # [design] a row is mixed when its second class holds at least
                           # this share of its two classes' weight (lambda ~ Beta(a, a))
MIN_MIXED_ROWS = 64        # [design] mixed rows needed before the shares are kept
RIDGE = 1e-6               # [design] relative ridge on the normal equations (a class absent
                           # from the kept rows leaves them singular)
SIMPLEX_TOLERANCE = 1e-3   # [design] target rows must be distributions (non-negative, summing
                           # to 1 within this): blended one-hot or smoothed labels are; box
                           # coordinates or other regression targets in [0, 1] are not (a box
                           # regressor's 4 targets read as 4 classes was named)
PROJECTED_WIDTH = 256      # [design] input rows wider than this are projected on fixed
                           # random directions (linear: the blend survives the projection)


def partner_matches(inputs, targets):
    """(mixed rows, classes, rows matching one, rows matching both) of stacked input rows
    (n, d) and soft target rows (n, classes), or None when the targets are not mixup's."""
    n, classes = targets.shape
    if classes < MIN_CLASSES or classes > MAX_CLASSES or n != len(inputs):
        return None
    if (targets < -SIMPLEX_TOLERANCE).any() or \
            np.abs(targets.sum(axis=1) - 1).max() > SIMPLEX_TOLERANCE:
        return None                       # not class distributions: no labels to blend
    weights = targets - targets.min(axis=1, keepdims=True)
    order = np.argsort(-weights, axis=1)
    major, minor = order[:, 0], order[:, 1]
    w1, w2 = weights[np.arange(n), major], weights[np.arange(n), minor]
    total = w1 + w2
    share = np.where(total > 0, w2 / np.where(total > 0, total, 1), 0)
    mixed = share >= MINOR_WEIGHT
    if mixed.sum() < MIN_MIXED_ROWS:
        return None
    if inputs.shape[1] > PROJECTED_WIDTH:
        directions = np.random.default_rng(inputs.shape[1]).standard_normal(
            (inputs.shape[1], PROJECTED_WIDTH)) / np.sqrt(PROJECTED_WIDTH)
        inputs = inputs @ directions
    normalised = targets / np.maximum(targets.sum(axis=1, keepdims=True), 1e-12)
    design = np.column_stack([normalised, np.ones(n)])
    gram = design.T @ design              # (classes + 1) squared: normal equations, not lstsq
    gram[np.diag_indices_from(gram)] += RIDGE * max(float(np.trace(gram)), 1e-12) / len(gram)
    coefficients = np.linalg.solve(gram, design.T @ inputs)
    prototypes, offset = coefficients[:classes], coefficients[classes]
    x = inputs[mixed] - offset
    a, b = major[mixed], minor[mixed]
    big, small = 1 - share[mixed], share[mixed]
    found_major = np.empty(len(x), dtype=np.int64)
    found_minor = np.empty(len(x), dtype=np.int64)
    others = ~np.eye(classes, dtype=bool)
    for start in range(0, len(x), 64):            # rows x classes x classes x width, in chunks
        part = slice(start, start + 64)
        fitted = (big[part, None, None, None] * prototypes[None, :, None, :]
                  + small[part, None, None, None] * prototypes[None, None, :, :])
        error = ((x[part, None, None, :] - fitted) ** 2).sum(axis=-1)
        error[:, ~others] = np.inf
        best = error.reshape(len(error), -1).argmin(axis=1)
        found_major[part], found_minor[part] = best // classes, best % classes
    one = int(((found_major == a) | (found_minor == b)).sum())
    both = int(((found_major == a) & (found_minor == b)).sum())
    return int(mixed.sum()), classes, one, both


class MixupPartners:
    def __init__(self, adapter, observed, inputs, on_error):
        """``inputs``: the shared ``first_training_inputs.FirstTrainingInputs``."""
        self.adapter, self.observed, self.on_error = adapter, observed, on_error
        self.inputs = inputs

    def read(self):
        """Set ``observed.mixup_partner_rows`` from the kept inputs and targets (host copies,
        once per findings; only when the targets are 2-D float rows)."""
        try:
            targets = [(step, t) for step, t in self.observed.targets
                       if len(getattr(t, "shape", ())) == 2 and
                       MIN_CLASSES <= t.shape[1] <= MAX_CLASSES and
                       getattr(t, "is_floating_point", lambda: False)()]
            if not targets:
                return
            xs, ys, steps = [], [], []
            for step, x, y in self.inputs.paired_with(targets, "first argument"):
                if x.ndim < 2 or len(x) != len(y) or not np.issubdtype(x.dtype, np.floating):
                    continue
                xs.append(np.asarray(x, dtype=np.float64).reshape(len(x), -1))
                ys.append(np.asarray(y, dtype=np.float64))
                steps.append(step)
            if not xs or len({x.shape[1] for x in xs}) != 1 or len({y.shape[1] for y in ys}) != 1:
                return
            inputs, rows = np.concatenate(xs), np.concatenate(ys)
            if not (np.isfinite(inputs).all() and np.isfinite(rows).all()):
                return
            measured = partner_matches(inputs, rows)
            if measured is not None:
                self.observed.mixup_partner_rows = [(min(steps), *measured)]
        except Exception as error:
            self.on_error(error)

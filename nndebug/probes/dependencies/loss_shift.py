"""Does the loss shift the targets itself? Read off its gradient.

Causal LM code often passes ``targets = input_ids`` to a loss that shifts inside
(``cross_entropy(logits[:, :-1], targets[:, 1:])``, as Hugging Face models do). Seen from
outside, targets equal to the inputs would look like an unshifted copy task. When the loss
function is known, one backward pass through it on the model's output settles it: a loss that
shifts gives no gradient to the last output position, which has no next token to predict.
"""
import numpy as np

from .._training import grad_enabled
from .future import positions_first


def loss_shift(runner, batch, targets, loss_fn, rows):
    """1 when ``loss_fn`` leaves the last output position out (it compares output t with
    target t + 1), 0 when it uses every position, None when it cannot tell."""
    if loss_fn is None or targets is None or batch.length is None:
        return None
    work = runner.work
    try:
        out, _ = runner.forward(batch.rows(range(rows)), rows, batch.length)
        if positions_first(out, batch.length) is None:
            return None
        leaf = work.from_numpy(out)
        work._require_grad(leaf)
        with grad_enabled(work), work.default_dtype(np.float64):
            loss = loss_fn(leaf, work.prepare(_first_rows(targets, rows)))
            loss.backward()
        grad = positions_first(np.abs(work.to_numpy(leaf.grad)), batch.length)
    except Exception:            # a loss that wants other shapes or types: no opinion
        return None
    mass = grad.reshape(grad.shape[0], grad.shape[1], -1).sum(axis=(0, 2))
    if mass[-1] == 0 and np.all(mass[:-1] > 0):
        return 1
    return 0 if np.all(mass > 0) else None


def _first_rows(value, rows):
    if isinstance(value, (tuple, list)):
        return type(value)(_first_rows(v, rows) for v in value)
    if isinstance(value, dict):
        return {k: _first_rows(v, rows) for k, v in value.items()}
    array = np.asarray(value)
    return array[:rows] if array.ndim >= 1 else array

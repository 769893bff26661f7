"""LOSSES_NOT_BACKPROPAGATED: a training step that computes its loss piece by piece (one
image, one time step, one micro-batch at a time) and back-propagates only some of the
pieces' losses (``run.observed.discarded_losses``, ``monitor/discarded_losses.py``).

``loss = loss_fn(model(x[j]), y[j])`` in a loop and one ``loss.backward()`` after it trains
on the last piece only; a ``backward()`` inside a branch that skips most micro-batches
throws those away. A step is counted when most of its training loss calls got no gradient,
at least one did (the step did back-propagate), and the calls read no more elements than
the model's forward passes output: each piece of the output was scored once (a loss that
scores ONE output several times, such as a permutation-invariant loss keeping the best of
several, is not this). Named when most of the steps read show it, on at least
``DISCARDED_MIN_STEPS`` steps.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

DISCARDED_MIN_STEPS = 2     # [design] steps that must show it: a loop discards the same
                            # losses on every step, one odd step (a logging forward) is no loop


def _discards(row):
    step, forwards, calls, reached, produced, read = row
    return reached >= 1 and calls - reached > reached and forwards >= 1 and read <= produced


@rule(produces="LOSSES_NOT_BACKPROPAGATED",
      explains={"LOSS_PLATEAU", "LOSS_OSCILLATING", "LOSS_AT_CHANCE"})
def losses_not_backpropagated(ctx):
    rows = observed_list(ctx, "discarded_losses")
    shown = [row for row in rows if _discards(row)]
    if len(shown) < DISCARDED_MIN_STEPS or 2 * len(shown) <= len(rows):
        return None
    step, forwards, calls, reached = shown[0][:4]
    return Finding(
        code="LOSSES_NOT_BACKPROPAGATED", severity="warning", where="loss", step=step,
        message=f"At step {step} the model ran {forwards} forward pass(es) and its loss was "
                f"computed {calls} times in training mode, but backward() reached only "
                f"{reached} of those losses: the other {calls - reached} were computed and "
                "thrown away (a loss assigned, not added, in a loop over images, time steps "
                "or micro-batches, or a backward() that only some of them reach). The model "
                "trains on a fraction of each batch.",
        evidence={"steps": [row[0] for row in shown],
                  "forward_passes": [row[1] for row in shown],
                  "loss_calls": [row[2] for row in shown],
                  "losses_backpropagated": [row[3] for row in shown]},
        fix="Add the pieces' losses (loss = loss + piece_loss, or torch.stack(losses).mean()) "
            "and call backward() on the total, or call backward() on every piece's loss "
            "(divided by their count) before optimizer.step().")

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

Also (real-bug batch 72, DeepRegNet/DeepReg#624): a classification loss called on the
training output against class-index labels on every walked step while the stepped loss's
graph holds no loss function and no log-likelihood (``run.observed.trained_loss_nodes``):
the label term computed and never added, a regulariser trained alone. Healthy look-alikes
stay silent: a classifier trained by its cross-entropy (its NLL node is in the graph), a
hand-written cross-entropy or label smoothing (a log_softmax), an autoencoder with a logged
cross-entropy metric (an MSE node), a metric computed under no_grad (no training call).

Also (real-bug batch 336, LixiangHan/GANs-for-1D-Signal#7): a derivative taken with
``torch.autograd.grad(..., create_graph=True)`` - a WGAN-GP gradient penalty, a physics
residual, a gradient-norm regulariser - whose results no later backward reached on every
noted step (``run.observed.derivative_reach``, ``monitor/derivative_calls.py``). A graph is
built through a derivative only to train through it; none reached means the term made
from it was computed and never added to the loss that was back-propagated.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

CLASS_INDEX_LOSS_NAMES = ("CrossEntropyLoss", "cross_entropy", "NLLLoss", "nll_loss")

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
        return _class_loss_never_added(ctx, rows) or _derivative_never_trained(ctx)
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


def _class_loss_never_added(ctx, rows):
    """Real-bug batch 72 (DeepRegNet/DeepReg#624): a classification loss called on the model's
    training output with class-index targets on each walked step, while the loss that was
    back-propagated holds no loss function's node and no log-likelihood at all
    (``run.observed.trained_loss_nodes``, ``monitor/trained_loss_nodes.py``): the labels'
    loss was computed and left out of the total (a regulariser or other unsupervised term
    trained alone). A training call is one the discarded-loss count saw (its input required a
    gradient, the model in training mode)."""
    walked = {step: found for step, found in observed_list(ctx, "trained_loss_nodes")}
    training = {row[0] for row in rows if row[2] >= 1}
    calls = {c.step for c in observed_list(ctx, "loss_calls")
             if c.loss in CLASS_INDEX_LOSS_NAMES and c.target_integer}
    steps = sorted(s for s in walked if s in training and s in calls)
    if len(steps) < DISCARDED_MIN_STEPS or any(walked[s] for s in steps):
        return None
    return Finding(
        code="LOSSES_NOT_BACKPROPAGATED", severity="warning", where="loss", step=steps[0],
        message=f"On steps {steps} a classification loss was computed on the model's "
                "training output against its labels, but the loss that was back-propagated "
                "holds no loss function and no log-likelihood at all: the labels' loss was "
                "computed and never added to the total, which trains on its other terms alone "
                "(a regulariser: the model learns to predict nothing). A weighted sum whose "
                "label term is gated on the wrong weight, or assigned where it was to be "
                "added, does this.",
        evidence={"steps": steps, "loss_calls": sorted({c.loss for c in observed_list(
            ctx, "loss_calls") if c.step in steps})},
        fix="Add every term to the total under its own weight (if w_label > 0: loss = loss + "
            "w_label * label_loss) and print each term next to the total.")


def _derivative_never_trained(ctx):
    """Real-bug batch 336: on every noted step (at least DISCARDED_MIN_STEPS) the results of
    the step's ``create_graph=True`` derivative calls were made and no later pass reached
    any of them (``observed.derivative_reach``): the penalty or residual built from them
    is not in the trained loss."""
    rows = observed_list(ctx, "derivative_reach")
    if len(rows) < DISCARDED_MIN_STEPS or any(reached for _, _, reached in rows):
        return None
    steps = [step for step, _, _ in rows]
    wrt = sorted({call[2] for call in observed_list(ctx, "derivative_calls")
                  if call[0] in steps and call[3]})
    of = " and ".join({"inputs": "the inputs", "parameters": "the parameters",
                       "computed": "a computed tensor"}.get(w, w) for w in wrt) or "tensors"
    return Finding(
        code="LOSSES_NOT_BACKPROPAGATED", severity="warning", where="loss", step=steps[0],
        message=f"On steps {steps} the training step took derivatives with respect to {of} "
                "with torch.autograd.grad(..., create_graph=True) - the graph that lets a "
                "loss train through them (a gradient penalty, a physics residual) - but no "
                "backward reached any of them: the term built from them was computed and "
                "never added to the loss that was back-propagated.",
        evidence={"steps": steps, "results_made": [made for _, made, _ in rows],
                  "with_respect_to": wrt},
        fix="Add the term to the loss you call backward() on (loss = loss_critic + "
            "lambda_gp * gradient_penalty), and print each term beside the total.")

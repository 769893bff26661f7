"""LOSS_TERM_ZERO_WITHOUT_GRADIENT: a term of the loss that is exactly 0 on every step and
carries no gradient, while a forward pass of the same step reached no loss
(``run.observed.loss_terms`` and ``discarded_losses``).

A consistency, distillation or contrastive term written on the wrong tensors - the
student's logits read from the teacher's output (microsoft/Semi-supervised-learning#102),
a prediction compared with a detached copy of itself - compares a tensor with itself: the
term is 0 on every step, no gradient comes from it, and the forward pass it was meant to
read (the student on the strong view) is computed and thrown away. The loss prints as the
supervised loss alone; nothing fails. LOSS_TERM_WITHOUT_GRADIENT leaves such a term alone,
since an addend of 0 reads like an accumulator started at ``torch.zeros(())``. What tells
the two apart is the wasted forward: the model's outputs that no training loss call read
(``discarded_losses``: elements output above elements read, and fewer training loss calls
than forward passes, so some forward fed no loss at all; a GAN's critic read by four losses
over three forwards is not this). A forward for a metric written without ``no_grad``
wastes outputs too, but adds no zero term to the loss; with a loss summed by ``sum()`` from
0 (a zero addend) in the same loop, the two would read as this.

The same term is also told from an accumulator by how it was made (real-bug batch 58): a
penalty SUMMED from tensors without a gradient (``LossTerm.computed``: a one-value tensor
the constants mode saw reduced from several entries) is no constant started at zero. An
EWC penalty whose "current" weight is sliced out of the saved copy ("the penalty is always
0 ... because `cur_param` is equal to `saved_param`", ContinualAI/avalanche#1099) compares
the copy with itself: 0 on every step, no gradient, the first task forgotten as if the
penalty were off. A disabled term written ``torch.tensor(0.)`` is made by no reduction and
stays silent.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

ZERO_TERM_MIN_STEPS = 2      # [design] measured steps with a zero term: one step is no habit
UNREAD_MIN_STEPS = 2         # [design] steps whose forward outputs partly reached no loss


@rule(produces="LOSS_TERM_ZERO_WITHOUT_GRADIENT")
def loss_term_zero_without_gradient(ctx):
    terms = [t for t in observed_list(ctx, "loss_terms") if t.value is not None]
    if len(terms) < ZERO_TERM_MIN_STEPS or any(t.value != 0 for t in terms):
        return None
    rows = observed_list(ctx, "discarded_losses")
    unread = [row for row in rows if row[1] >= 2 and row[2] < row[1] and 0 < row[5] < row[4]]
    if len(unread) < UNREAD_MIN_STEPS or 2 * len(unread) <= len(rows):
        return _zero_term_computed_without_gradient(terms)
    step, forwards, calls, reached, produced, read = unread[0]
    return Finding(
        code="LOSS_TERM_ZERO_WITHOUT_GRADIENT", severity="warning", where="loss",
        step=terms[0].step,
        message=f"A term added to the loss is exactly 0 on every measured step "
                f"({len(terms)} steps) and carries no gradient, while {produced - read} of the "
                f"{produced} output values of the step's {forwards} forward passes reached no "
                "loss: the term compares tensors without a gradient (a tensor with itself: "
                "a student's logits read from the teacher's output), and the forward it was "
                "meant to read is computed and thrown away. It trains nothing.",
        evidence={"term_steps": [t.step for t in terms], "unread_steps": [r[0] for r in unread],
                  "forward_passes": forwards, "outputs": produced, "outputs_read": read},
        fix="Compute the term from the forward pass it is meant to train (the student's "
            "output on its own view), keeping only the target side detached.")


def _zero_term_computed_without_gradient(terms):
    """The zero term summed from tensors without a gradient on every measured step (module
    doc), or None."""
    if any(not t.computed for t in terms):
        return None
    return Finding(
        code="LOSS_TERM_ZERO_WITHOUT_GRADIENT", severity="warning", where="loss",
        step=terms[0].step,
        message=f"A term added to the loss is exactly 0 on every measured step "
                f"({len(terms)} steps) and carries no gradient, though it is computed: a "
                "sum over tensors that are all without a gradient. It compares copies with "
                "each other instead of the model with a copy (an EWC or L2-SP penalty whose "
                "'current' weights are read from the saved copy, a distillation term on two "
                "detached outputs), so it is 0 and trains nothing: the model is free to "
                "forget what the term was meant to keep.",
        evidence={"term_steps": [t.step for t in terms], "computed": True},
        fix="Compute the term from the model's own parameters or outputs (with their "
            "graph), and keep only the reference side detached: e.g. "
            "(importance * (param - saved) ** 2).sum().")

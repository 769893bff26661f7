"""REFERENCE_IS_THE_TRAINED_MODEL: a term of the loss subtracts a constant "reference"
from what the model computes (``log_probs - ref_log_probs``, ``param - saved``), and the
two are exactly equal on every measured step, also after optimizer steps
(``run.observed.self_references``, ``monitor/self_references.py``).

A KL penalty to a frozen reference policy, distillation to the model before fine-tuning,
a pull toward saved weights: the reference must be a copy. Passed the same object ("I was
creating a `policy` model and passing it ... as both `policy` and `ref_policy`",
huggingface/trl#2046), assigned without ``copy.deepcopy`` (``old_model = model``), or saved
as ``p.detach()``/``p.data`` (the same storage, moving with every update), it is the
trained model itself: the difference is 0 in every entry, the term and its gradient are 0,
and the model drifts wherever the rest of the loss pulls it (onto what a reward model
overpays, away from the first task). A copy equals the model only until the first update,
so the steps measured after optimizer steps tell the two apart; a probability ratio
``exp(log_prob - old_log_prob)`` is PPO_RATIO_ALWAYS_ONE's and not read here.
"""
from ..findings import Finding
from .context import observed_list
from .graph import rule

SELF_REFERENCE_MIN_STEPS = 3   # [design] measured steps, every one with a difference exactly
                               # 0: a copy taken at watch() may equal the model on the first,
                               # not after two more optimizer steps


@rule(produces="REFERENCE_IS_THE_TRAINED_MODEL",
      explains={"LOSS_TERM_ZERO_WITHOUT_GRADIENT", "LOSS_DIVERGING", "LOSS_PLATEAU"})
def reference_is_the_trained_model(ctx):
    rows = observed_list(ctx, "self_references")
    if len(rows) < SELF_REFERENCE_MIN_STEPS or any(equal == 0 for _, equal, _ in rows):
        return None
    steps = [step for step, _, _ in rows]
    return Finding(
        code="REFERENCE_IS_THE_TRAINED_MODEL", severity="warning", where="loss", step=steps[0],
        message=f"A term of the loss subtracts a reference without a gradient from the "
                f"model's own output or weights (reference log-probabilities, an old model's "
                f"outputs, saved weights), and the two are exactly equal in every entry on "
                f"all {len(steps)} measured steps, also after optimizer steps: the reference "
                "is the trained model itself (the same object passed as model and reference, "
                "old = model without a copy, weights saved as p.detach() or p.data). The term "
                "and its gradient are 0: nothing keeps the model near its reference.",
        evidence={"steps": steps, "equal_differences": [row[1] for row in rows],
                  "differences_compared": [row[2] for row in rows],
                  "min_steps": SELF_REFERENCE_MIN_STEPS},
        fix="Make the reference a frozen copy taken before training: ref = "
            "copy.deepcopy(model).eval() with requires_grad_(False), or saved = "
            "[p.detach().clone() for p in model.parameters()].")

"""PADDING_NOT_MASKED for soft-target losses (label smoothing): the evidence, from
``run.observed.soft_target_padding`` (``monitor/soft_target_padding.py``), in the form
``sequence.unmasked_padding`` judges for class-index losses. Not a rule of its own: the
padding rule in ``sequence.py`` asks it when no class-index loss showed padding.

A smoothed target row points at one class (its largest entry): a hand-written smoothing loss
that scores the padded positions (k-tahiro/bert-summarizer#41) has the padding id as the
most frequent of them, in runs at the ends of the sequences. Such a loss ignores nothing
(it has no ``ignore_index``); one computed with ``reduction="none"`` may be masked after the
call and is left alone, as for the class-index losses.
"""
from types import SimpleNamespace

NO_IGNORED_ID = -100         # what a smoothing loss without masking ignores: nothing (torch's
                             # default ignore_index, which no class id equals)


def soft_target_calls(rows):
    """The rows as the loss-call records ``sequence.unmasked_padding`` reads."""
    return [SimpleNamespace(step=step, loss=loss, reduction=reduction, output_shape=tuple(shape),
                            ignore_index=NO_IGNORED_ID, target_mode=mode,
                            target_mode_share=share, target_mode_in_runs=in_runs,
                            target_others_in_runs=others)
            for step, loss, reduction, shape, mode, share, in_runs, others in rows
            if not _batch_against_itself(shape)]


def _batch_against_itself(shape):
    """(batches 121/135) A square (B, B) score matrix: a contrastive loss scores the batch
    against itself, and its soft targets point at batch positions (the first row of a
    sample's class), not at token ids; runs of one position are rows of one class."""
    return len(shape) == 2 and shape[0] == shape[1]

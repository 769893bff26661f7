"""Where a masked-token loss reads: at the masks, or at tokens the model can see
(LOSS_READS_UNMASKED_TOKENS, ``nndebug.rules.masked_tokens``).

A masked language model hides some input tokens behind a corruption id ([MASK]) and is
taught to restore them: the loss must read the hidden positions only, every other label
set to the loss's ``ignore_index`` (-100). Two slips leave the loss reading positions
whose own input IS the label, so most of the loss is paid for copying:

- the labels of the unmasked tokens are left as they were (the loss reads every token;
  huggingface/transformers#20797);
- the masked positions were chosen before a [CLS] was put in front of the sentence, and
  the list of positions was not moved with it (the loss reads the token just before each
  mask; coaxsoft/pytorch_bert#1).

Both show in the ids alone: at the positions the loss reads, the input token equals the
target at most positions, and where it does not, one single id stands in the input (the
corruption id), an id the targets never hold. A healthy masked LM reads its labels where
the input is that id (BERT's 80/10/10 leaves the label visible at about a tenth); a causal
LM's targets are the next tokens (equal to the input only where a token repeats); an
autoencoder without corruption has no such id (and is TARGETS_IN_INPUTS' to judge); and a
step where another lookup is the targets shifted right by one (a decoder's input) is an
encoder-decoder's: a BART-style denoiser reads the corrupted text in its encoder and
writes all of it, one step behind, by design.

What it keeps (torch or minigrad, training lookups of token embeddings): a detached
reference to the ids of the first ``LOOKUPS_KEPT`` lookups (each hook removes itself after
them: no per-step work afterwards, no host transfer during the step). Read when findings
are asked for, against the targets the loss capture kept for the same step
(``run.observed.targets``) and that call's ``ignore_index``. Kept as
``run.observed.visible_targets``: ``[(step, positions read, read where the input is the
target, corruption id, read positions holding it, read positions where input and target
differ)]``, one row per lookup whose ids line up with a kept target.
"""
import numpy as np

from .token_id_shares import FirstLookups

LOOKUPS_KEPT = 4           # [design] training lookups kept per embedding (the first steps
                           # show how the labels were made; an encoder-decoder looks up twice)
DEFAULT_IGNORE_INDEX = -100   # [convention] torch's cross_entropy / nll_loss default
TEACHER_FORCED_SHARE = 0.9    # [design] a lookup equal to the targets shifted right by one at
                              # this share of positions is a decoder's input (as the offset
                              # measure of the dependency probes asks of an alignment)


class VisibleTargets(FirstLookups):
    """Keeps the ids of the first token lookups (see the module doc)."""
    lookups_kept = LOOKUPS_KEPT

    def __init__(self, adapter, observed, current_step, on_error):
        self.observed, self.current_step = observed, current_step
        self.kept = []             # [(step, detached ids)]
        super().__init__(adapter, on_error)

    def on_lookup(self, name, module, inputs):
        if not self.adapter.is_training(module) or not inputs or \
                not self.adapter.is_tensor(inputs[0]):
            return False
        step = self.current_step()
        self.kept.append((-1 if step is None else int(step), self.adapter.detach(inputs[0])))
        return True

    def read(self):
        """Compare the kept ids with the kept targets of the same step (host copies, once,
        when findings are asked for)."""
        try:
            targets = {}
            for step, target in self.observed.targets:
                targets.setdefault(step, target)
            ignored = {call.step: call.ignore_index for call in self.observed.loss_calls
                       if getattr(call, "ignore_index", None) is not None}
            found = []
            for step in sorted({step for step, _ in self.kept}):
                if step not in targets:
                    continue
                wanted = np.asarray(self.adapter.to_numpy(targets[step]))
                ignore = ignored.get(step, DEFAULT_IGNORE_INDEX)
                lookups = [np.asarray(self.adapter.to_numpy(ids))
                           for seen, ids in self.kept if seen == step]
                if any(teacher_forced(ids, wanted, ignore) for ids in lookups):
                    continue              # a decoder reads these targets: a seq2seq task
                for ids in lookups:
                    row = visible_share(ids, wanted, ignore)
                    if row is not None:
                        found.append((step, *row))
            if found or not self.observed.visible_targets:
                self.observed.visible_targets = found
        except Exception as error:
            self.on_error(error)


def teacher_forced(ids, targets, ignore_index):
    """True when ``ids`` are the targets shifted right by one (ids[:, t] == targets[:, t - 1]
    at ``TEACHER_FORCED_SHARE`` of the read positions): a decoder's inputs. An encoder-
    decoder denoiser (BART) reads a corrupted copy of its targets in the encoder on
    purpose; its decoder shows the task is to write them, one step behind."""
    if ids.ndim != 2 or ids.dtype.kind not in "iu" or targets.size != ids.size:
        return False
    targets = targets.reshape(ids.shape)
    read = (targets[:, :-1] != ignore_index) & (targets[:, :-1] >= 0)
    if not read.any():
        return False
    return float((ids[:, 1:] == targets[:, :-1])[read].mean()) >= TEACHER_FORCED_SHARE


def visible_share(ids, targets, ignore_index):
    """(positions read, read where the input is the target, corruption id, read positions
    holding it, read positions where input and target differ) of 2-D integer ``ids``
    against targets of the same positions (flattened targets are put back in the ids'
    shape); None when they do not line up or nothing is read."""
    if ids.ndim != 2 or ids.dtype.kind not in "iu" or targets.dtype.kind not in "iu":
        return None
    if targets.shape != ids.shape:
        if targets.size != ids.size:
            return None
        targets = targets.reshape(ids.shape)
    read = (targets != ignore_index) & (targets >= 0)
    count = int(read.sum())
    if count == 0:
        return None
    same = read & (ids == targets)
    differ = read & (ids != targets)
    hidden = ids[differ]
    if hidden.size == 0:
        return count, int(same.sum()), -1, 0, 0
    values, counts = np.unique(hidden, return_counts=True)
    commonest = int(values[int(np.argmax(counts))])
    if np.any(targets[read] == commonest):
        commonest_count = 0       # an id the targets hold is no corruption id
    else:
        commonest_count = int(counts.max())
    return count, int(same.sum()), commonest, commonest_count, int(hidden.size)

"""Batch-norm batches of one or two samples on ANY step, not only on recorded ones.

``structure.py`` measures every batch-norm layer's batch on recorded steps: enough when the
batches are always tiny (batch size 2). A DataLoader without ``drop_last`` ends each epoch
with the remainder - one or two samples when the dataset size is just past a multiple of
the batch size - and that step is seldom a recorded one (step 55 of a 56-batch epoch, then
111, ...). Batch norm normalises that batch by its own one or two samples, and its running
statistics (what eval mode uses) take that noise in with weight ``momentum`` at the end of
every epoch, right before validation.

Cost: one forward pre-hook on the FIRST batch-norm layer only (models without batch norm
get nothing); it reads the input's shape (no host sync, no device work) and returns. Rows
are kept only for tiny batches, at most ``KEPT`` of them; then the hook is removed.
Result: ``run.observed.tiny_norm_batches`` rows (step, layer, samples, values per channel);
``rules/structure.py`` (BATCHNORM_TINY_BATCH) judges.
"""
import math

from ..records import BATCHNORM_TYPES

OCCASIONAL_TINY = 2   # [design] issue #10: "batch norm on batches of 1-2 samples, e.g. the last
                      # batch of an epoch"; a batch this small, even now and then, is kept
KEPT = 16             # [design] tiny batches kept; the verdict needs a few, memory stays bounded


class TinyNormBatches:
    def __init__(self, adapter, observed, current_step, on_error):
        self.adapter, self.observed = adapter, observed
        self.current_step, self.on_error = current_step, on_error
        self._handle = None
        try:
            first = next(((name, m) for name, m in adapter.named_modules()
                          if adapter.module_type(m) in BATCHNORM_TYPES), None)
            if first is not None:
                self.layer = first[0]
                self._handle = adapter.add_forward_pre_hook(first[1], self._on_forward)
        except Exception as error:     # never break the user's run
            on_error(error)

    def _on_forward(self, module, inputs):
        try:
            if not inputs or not self.adapter.is_training(module):
                return
            x = inputs[0]
            if not self.adapter.is_tensor(x) or x.ndim < 2 or int(x.shape[0]) > OCCASIONAL_TINY:
                return
            samples = int(x.shape[0])
            values = samples * math.prod(int(n) for n in x.shape[2:])
            self.observed.tiny_norm_batches.append(
                (int(self.current_step()), self.layer, samples, values))
            if len(self.observed.tiny_norm_batches) >= KEPT:
                self.close()
        except Exception as error:
            self.on_error(error)
            self.close()

    def close(self):
        if self._handle is not None:
            self._handle.remove()
            self._handle = None

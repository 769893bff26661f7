"""Which validation set each validation pass measured: an order-free fingerprint of its
inputs, so that OVERFITTING compares validation losses of one set only
(``nndebug.rules.loss_curve.overfitting``, which compares the fingerprints).

A validation loss that rises while the training loss falls is overfitting only when it is
measured on the same samples each time. A script that draws a new train/validation split
for each stage of training (or samples a new validation subset) measures every stage on
other samples, some of them trained on before: the validation curve then jumps where the
set changed, and a rise there says nothing about memorising.

A validation pass is what ``validation_inputs.py`` calls one: the forwards run without
gradients since the last training forward, in a step that passes ``val_loss``. Once a first
``val_loss`` has shown that the run validates, a forward pre-hook on the model adds up, for
each no-gradient forward, the number of rows of its first floating-point input, the sum of
its values and the sum of their squares (accumulated in float64, on the input's device: no
transfer). When the step passes ``val_loss``, the pass's totals go to the host in one
transfer. The totals
do not depend on the order of the rows or on how they were batched, so a shuffled
validation loader gives the same fingerprint on the same set.

Cost: a run that never passes ``val_loss`` pays nothing; one that does pays a grad-mode
check per forward (about 3 microseconds) and three small reductions per validation forward,
for its first MAX_PASSES validation passes; the hook goes after them. Kept in
``run.observed.validation_sets`` as ``(step, rows, sum, sum of squares)`` (a declared field
of ``nndebug.observed.Observed``: saved and loaded with the run).
"""
MAX_PASSES = 64      # [design] validation passes fingerprinted (a run validating every
                     # epoch for 64 epochs); later passes are not compared


class ValidationSets:
    def __init__(self, adapter, observed, root, current_step, on_error):
        self.adapter, self.observed, self.root = adapter, observed, root
        self._current_step, self._on_error = current_step, on_error
        self._handle = None
        self._pending = []          # [(step, rows, sum, sum of squares)] of this step's
        self._grad_enabled = None   # no-gradient forwards (tensors on the device)
        if adapter.framework == "torch" and root is not None:
            import torch
            self._grad_enabled = torch.is_grad_enabled

    def saw_validation(self):
        """``mon.step(loss, val_loss=...)`` is closing the current step: its no-gradient
        forwards were the validation's; their totals are kept as one pass."""
        try:
            step, kept = self._current_step(), self.observed.validation_sets
            passes = [p for p in self._pending if p[0] == step]
            if passes and len(kept) < MAX_PASSES:
                import torch
                totals = torch.stack([torch.stack([s, q]) for _, _, s, q in passes]).sum(0)
                total, squares = (float(v) for v in self.adapter.to_numpy(totals))
                kept.append((step, sum(p[1] for p in passes), total, squares))
        except Exception as error:        # never break the user's step
            self._on_error(error)
        self._pending = []
        if len(self.observed.validation_sets) >= MAX_PASSES:
            self.close()
        elif self._handle is None and self._grad_enabled is not None:
            self._handle = self.adapter.add_forward_pre_hook(self.root, self._before_forward)

    def _before_forward(self, module, inputs):
        if self._grad_enabled():          # a training forward: what came before it was
            if self._pending:             # part of the training step, not validation
                self._pending.clear()
            return
        try:
            step, pending = self._current_step(), self._pending
            if pending and pending[0][0] != step:
                pending.clear()           # an earlier step's, which passed no val_loss
            leaves = self.adapter.float_leaves(inputs)
            if leaves and len(getattr(leaves[0], "shape", ())) >= 1:
                import torch
                x = self.adapter.detach(leaves[0])
                # accumulated in float64 without a float64 copy of the batch
                total = x.sum(dtype=torch.float64)
                squares = torch.linalg.vector_norm(x, dtype=torch.float64) ** 2
                pending.append((step, int(x.shape[0]), total, squares))
        except Exception as error:        # never break the user's forward pass
            self._on_error(error)

    def close(self):
        self._pending = []
        if self._handle is not None:
            self._handle.remove()
            self._handle = None


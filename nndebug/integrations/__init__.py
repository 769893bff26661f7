"""nndebug where people train without writing the loop: framework callbacks.

- ``nndebug.integrations.lightning.NNDebugCallback``: a ``lightning.pytorch.Callback``;
- ``nndebug.integrations.transformers.NNDebugCallback``: a ``transformers.TrainerCallback``.

Each module imports its framework only when it is imported itself, so ``import nndebug``
works without either installed (they are the optional extras ``[lightning]`` and
``[transformers]``). Both callbacks do the same four things, at the points of their
framework's loop where a hand-written loop would:

1. start ``nndebug.watch`` on the trainer's model WITH the trainer's optimizer, when
   training starts (so every rule applies, OPTIMIZER_MISSING_PARAMS included);
2. call ``monitor.step(loss)`` right after each optimizer step, before the gradients are
   cleared (with gradient accumulation: once per optimizer step, with the mean loss of the
   micro-batches);
3. pass the validation loss when the framework computes one;
4. at the end: print the findings, log them to the framework's logger, and close the
   monitor (no hook stays on the model; ``callback.monitor.findings()`` stays readable).

Training is bit-for-bit what it is without the callback: the monitor only reads.
"""

"""Running statistics that layers of the user's own making never update
(``run.observed.unchanged_running_buffers``; BATCHNORM_STATISTICS_FROZEN,
``nndebug.rules.frozen_norm_statistics``).

A hand-written batch norm keeps its running mean and variance in buffers and must update
them in training mode: evaluation normalises with them. Written with out-of-place ops
(``self.running_mean.mul(1 - m).add(m * mean)``, the result dropped), or assigned to a local
name, the update is lost without an error: the buffers keep their start (0 and 1), training
looks fine and eval mode normalises with statistics of no data (hiwonjoon/tf-frrn#2, "I
missed the part where running statistics (mean&stds) for batchnorm is updated").

What is read: the model's modules that are not torch's own norm layers (their momentum is
read as a setting) and hold floating buffers named ``running_*`` or ``moving_*``, or named
for an averaged statistic in the other spellings hand-written norms use: ``avg_*``,
``average_*``, ``pop_*``, ``population_*`` with ``mean``, ``var`` or ``std`` in the name
(improved-gan's ``avg_batch_mean``/``avg_batch_var``, whose queued updates the MNIST script
never applies: openai/improved-gan#17; the "population" ``pop_mean``/``pop_var`` of
batch-norm tutorials). A fixed normalisation constant (``mean``/``std`` of the input
pixels) carries no such prefix and is left alone. Their
buffers are copied once when watching starts; forward hooks on the first ``STEPS_ARMED``
recorded steps count the calls made in training mode; before findings the buffers are
compared with the copies (one comparison per buffer, at findings only).
"""
RUNNING_PREFIXES = ("running_", "moving_")
AVERAGE_PREFIXES = ("avg_", "average_", "pop_", "population_")  # [design] averaged-statistic
                             # spellings (openai/improved-gan#17's avg_batch_mean; pop_mean):
                             # followed only with a STATISTIC_WORDS word in the name
STATISTIC_WORDS = ("mean", "var", "std")
STEPS_ARMED = 8              # [design] recorded steps whose training-mode calls are counted
LAYERS_KEPT = 32             # [design] layers with running buffers followed at most
VALUES_KEPT = 1 << 20        # [design] buffer values copied at most (4 MB of float32)


def running_buffers(module):
    """[(name, buffer)] of a module's own floating buffers named like running statistics."""
    return [(name, b) for name, b in module.named_buffers(recurse=False)
            if statistics_name(name) and b is not None and b.is_floating_point()]


def statistics_name(name):
    """Whether a buffer's name says it holds a running (averaged) statistic."""
    return name.startswith(RUNNING_PREFIXES) or (
        name.startswith(AVERAGE_PREFIXES) and any(w in name for w in STATISTIC_WORDS))


class RunningBuffers:
    def __init__(self, adapter, observed, model, on_error):
        self.adapter, self.observed, self.on_error = adapter, observed, on_error
        self.layers, self.calls, self.armed = [], {}, 0
        self._handles = []
        if adapter.framework != "torch":
            return
        try:
            values = 0
            for name, module in model.named_modules():
                if type(module).__module__.startswith("torch.nn"):
                    continue                # torch's norms: their settings are read instead
                buffers = running_buffers(module)
                size = sum(b.numel() for _, b in buffers)
                if not buffers or values + size > VALUES_KEPT or len(self.layers) >= LAYERS_KEPT:
                    continue
                values += size
                self.layers.append((name, module, [(n, b.detach().clone()) for n, b in buffers]))
                self.calls[name] = 0
        except Exception as error:
            on_error(error)
            self.layers = []

    def arm(self, step):
        if not self.layers or self._handles or self.armed >= STEPS_ARMED:
            return
        self.armed += 1
        try:
            self._handles.append(self.adapter.add_forward_hooks(
                [(module, self._counting(name)) for name, module, _ in self.layers]))
        except Exception as error:
            self.on_error(error)
            self.layers = []

    def _counting(self, name):
        def on_output(module, inputs, output):
            if module.training:
                self.calls[name] += 1
        return on_output

    def disarm(self):
        for handle in self._handles:
            handle.remove()
        self._handles = []

    close = disarm

    def read(self):
        """Compare each followed layer's buffers with their copies (before findings)."""
        if not self.layers:
            return                  # nothing followed (a minigrad model): torch is not needed
        import torch
        rows = []
        try:
            for name, module, copies in self.layers:
                changed = any(not torch.equal(getattr(module, n).detach(), copy)
                              for n, copy in copies)
                rows.append((name, [n for n, _ in copies], self.calls[name], changed))
        except Exception as error:
            self.on_error(error)
            return
        self.observed.unchanged_running_buffers[:] = rows

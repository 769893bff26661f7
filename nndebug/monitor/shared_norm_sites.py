"""One batch-norm layer called at two or more places of one forward pass, on activations
that differ (NORM_STATISTICS_SHARED_ACROSS_SITES, ``nndebug.rules.shared_norm_sites``).

A batch norm normalises in training with the batch's own statistics and keeps running
averages of them for evaluation. Called at two sites of a network - the same module object
reached twice: a block shared between steps that holds its norm too, ``self.bn1`` written
where ``self.bn2`` was meant, one norm over every time step of a recurrent loop - it still
normalises each call correctly in training, so the training loss looks healthy; but its
running mean and variance become a blend of the sites, right for none, and the evaluated
model (``model.eval()``) normalises every site with the blend. A siamese encoder that runs
one norm on two inputs of the same kind is fine: its calls see the same distribution.

What is kept (torch): on the first ``NORM_SITES_STEPS`` recorded steps, a forward hook on each
norm layer that tracks running statistics, and a forward pre-hook on the model counting
its forwards; each training-mode call keeps the per-channel mean and variance of its input
(computed on the device, no host transfer during the step), at most ``NORM_SITES_CALLS_KEPT`` calls
per norm and forward. Read when findings are asked for: for each norm called two or more
times in one forward, how far apart its calls' inputs are - per channel, the difference of
two calls' means over their pooled standard deviation (the mean gap) and the larger
variance over the smaller (the spread ratio); the median of each over channels; the
largest of each over pairs of calls. Kept as ``run.observed.shared_norm_sites``: ``[(step,
norm name, calls in one forward, mean gap, spread ratio)]``.
"""
NORM_SITES_STEPS = 3             # [design] recorded steps watched: a model's wiring does
                                 # not change
NORM_SITES_CALLS_KEPT = 4        # [design] calls of one norm kept per forward (a recurrent
                                 # loop may call it at every time step: the first few show
                                 # the blend)
NORM_SITES_ROWS = 16             # [design] (norm, forward) rows kept at most
NORM_SITES_VARIANCE_FLOOR = 1e-5  # [design] added to the variances compared (BatchNorm's own
                                  # eps)
NORM_SITES_MIN_VALUES = 32       # [measured] values per channel a call needs, and
NORM_SITES_MIN_CHANNELS = 8      # channels a norm needs, to be compared: 20,000 simulated
                                 # pairs of calls on one distribution (ReLU'd Gaussians, 8
                                 # channels of 32 values) reach a spread ratio of 3.02 and a
                                 # mean gap of 0.54 at most; with 4 channels of 16 values the
                                 # ratio reaches 3.4 in 4,000 (Gaussian), too near the rule's 4


def norm_layers(adapter):
    """[(name, module)] of the layers that keep running statistics (BatchNorm1d/2d/3d,
    SyncBatchNorm, an InstanceNorm with track_running_stats=True)."""
    if adapter.framework != "torch":
        return []
    return [(name, module) for name, module in adapter.named_modules()
            if adapter.is_tensor(getattr(module, "running_mean", None))
            and getattr(module, "track_running_stats", False)]


class SharedNormSites:
    def __init__(self, adapter, observed, on_error=lambda error: None):
        self.adapter, self.observed, self.on_error = adapter, observed, on_error
        self.norms = norm_layers(adapter)
        self.steps = 0
        self._step = None
        self._forward = 0            # forwards of the model seen (the calls' grouping)
        self._handles = []
        self.kept = {}               # (step, forward, norm name) -> [(mean, variance)]

    def arm(self, step):
        """Hook the norms for recorded step ``step`` (not after NORM_SITES_STEPS steps)."""
        if not self.norms or self.steps >= NORM_SITES_STEPS or step is None:
            return
        self.steps += 1
        self._step = int(step)
        try:
            self._handles.append(self.adapter.add_forward_pre_hook(self.adapter.model,
                                                                   self._on_forward))
            for name, module in self.norms:
                self._handles.append(self.adapter.add_forward_hook(module,
                                                                   self._make_on_call(name)))
        except Exception as error:   # a model without hooks: nothing is kept
            self.disarm()
            self.norms = []
            self.on_error(error)

    def disarm(self):
        for handle in self._handles:
            handle.remove()
        self._handles = []

    def _on_forward(self, module, inputs):
        self._forward += 1

    def _make_on_call(self, name):
        def on_call(module, inputs, output):
            try:
                if not module.training or not inputs or not self.adapter.is_tensor(inputs[0]):
                    return
                key = (self._step, self._forward, name)
                calls = self.kept.setdefault(key, [])
                if len(calls) >= NORM_SITES_CALLS_KEPT or len(self.kept) > NORM_SITES_ROWS * 8:
                    return
                x = inputs[0].detach()
                if x.dim() < 2 or x.shape[1] < NORM_SITES_MIN_CHANNELS or \
                        x.shape[0] * x[0, 0].numel() < NORM_SITES_MIN_VALUES:
                    return
                per_channel = x.transpose(0, 1).reshape(x.shape[1], -1).float()
                calls.append((per_channel.mean(1), per_channel.var(1, unbiased=False)))
            except Exception as error:   # never break the user's forward
                self.on_error(error)
        return on_call

    def read(self):
        """The separation of each norm's calls within one forward (host copies, once, when
        findings are asked for)."""
        try:
            rows = []
            for (step, _, name), calls in self.kept.items():
                if len(calls) >= 2 and len(rows) < NORM_SITES_ROWS:
                    rows.append((step, name, len(calls), *separation(calls)))
            if rows or not self.observed.shared_norm_sites:
                self.observed.shared_norm_sites = rows
        except Exception as error:
            self.on_error(error)


def separation(calls):
    """(mean gap, spread ratio) of a norm's calls: the largest, over pairs of calls, of the
    median over channels of |mean_a - mean_b| / sqrt((var_a + var_b) / 2), and of
    max(var_a, var_b) / min(var_a, var_b). Two batches of one distribution: ~0.1-0.2 and
    ~1.2-1.4."""
    gap, ratio = 0.0, 1.0
    for a in range(len(calls)):
        for b in range(a + 1, len(calls)):
            (mean_a, var_a), (mean_b, var_b) = calls[a], calls[b]
            pooled = ((var_a + var_b) / 2 + NORM_SITES_VARIANCE_FLOOR).sqrt()
            gap = max(gap, float(((mean_a - mean_b).abs() / pooled).median()))
            larger, smaller = var_a.maximum(var_b), var_a.minimum(var_b)
            ratio = max(ratio, float(((larger + NORM_SITES_VARIANCE_FLOOR) /
                                      (smaller + NORM_SITES_VARIANCE_FLOOR)).median()))
    return gap, ratio

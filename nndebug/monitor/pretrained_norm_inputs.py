"""What a pretrained model's batch norms see on the first training batch, against the
statistics they were pretrained with (INPUT_SCALE_UNLIKE_PRETRAINING, INPUT_CHANNELS_REORDERED,
``nndebug.rules.pretrained_statistics``).

A batch-norm layer that arrives with running statistics already accumulated
(``num_batches_tracked > 0`` when watching starts: a downloaded or earlier-trained model)
carries a record of the inputs it was pretrained on: their per-channel mean and variance at
that layer. Fine-tuning data preprocessed by another recipe than the pretraining's - pixels in
[0, 1] for a backbone pretrained on caffe-style 0-255 inputs (keras#3622), caffe-style inputs
for a torch-style backbone (keras#10279), the channel order reversed - reaches the first such
layer at a scale or centre far from that record. Data from another domain moves it too, but
by a little, not by tens of standard deviations or a factor of 100 in variance.

How it is read (torch): at watch start, the model's torch batch-norm layers with tracked
statistics and ``num_batches_tracked > 0`` (the first ``PRETRAINED_NORM_LAYERS`` in module
order; none for a model trained from scratch: then nothing else is done) have their running
mean and variance copied. On the first recorded step only, a forward pre-hook on each takes
the per-channel mean and variance of its input batch (device tensors, no host transfer;
before the layer's own forward could update its statistics). For the first followed layer
whose module just before it in module order is a convolution over 3 input channels (a stem,
conv -> bn), a pre-hook on that convolution keeps its input, and the convolution is run once
more on that input with its channels reversed (one extra convolution, on that step only):
the statistics that order would give the layer. The hooks go when the step's recording ends;
the numbers are read at findings.

Kept in ``run.observed.pretrained_norm_inputs`` as ``[(layer, forward order, channels, in
training mode, median |batch mean - running mean| / running std over channels, median
log10(batch variance / running variance), the same two with the channels reversed or None)]``.
"""
import math

PRETRAINED_NORM_LAYERS = 4   # [design] pretrained batch norms followed (the first, in module
                             # order: the earliest layers see the preprocessing most directly)
PRETRAINED_NORM_EPS = 1e-5   # [design] added to running variances (torch's default eps)


def _median(values):
    values = sorted(v for v in values if math.isfinite(v))
    if not values:
        return None
    middle = len(values) // 2
    return values[middle] if len(values) % 2 else 0.5 * (values[middle - 1] + values[middle])


class PretrainedNormInputs:
    def __init__(self, adapter, observed, model, on_error):
        self.adapter, self.observed, self.on_error = adapter, observed, on_error
        self.layers = []            # [(name, module, running mean copy, running var copy)]
        self.stem = None            # (conv module, index of the layer it feeds)
        self.done = False
        self._handles, self._taken, self._stem_input, self._order = [], {}, None, 0
        if adapter.framework != "torch" or model is None:
            return
        try:
            import torch
            batch_norm = torch.nn.modules.batchnorm._BatchNorm
            previous = None
            for name, module in model.named_modules():
                if isinstance(module, batch_norm) and len(self.layers) < PRETRAINED_NORM_LAYERS:
                    tracked = getattr(module, "num_batches_tracked", None)
                    if module.track_running_stats and module.running_mean is not None and \
                            tracked is not None and int(tracked) > 0:
                        if self.stem is None and not self.layers and \
                                isinstance(previous, torch.nn.Conv2d) and \
                                previous.in_channels == 3 and previous.groups == 1 and \
                                previous.out_channels == module.num_features:
                            self.stem = (previous, 0)
                        self.layers.append((name, module, module.running_mean.detach().clone(),
                                            module.running_var.detach().clone()))
                if not list(module.children()):
                    previous = module
        except Exception as error:
            on_error(error)
            self.layers, self.stem = [], None

    def arm(self, step):
        """Hook the followed layers for the first recorded step only."""
        if not self.layers or self.done or self._handles:
            return
        self.done = True
        try:
            for index, (_, module, _, _) in enumerate(self.layers):
                self._handles.append(self.adapter.add_forward_pre_hook(
                    module, self._taking(index)))
            if self.stem is not None:
                self._handles.append(self.adapter.add_forward_pre_hook(
                    self.stem[0], self._keeping_stem_input))
        except Exception as error:
            self.on_error(error)
            self.disarm()
            self.layers = []

    def _keeping_stem_input(self, module, inputs):
        if self._stem_input is None and inputs and getattr(inputs[0], "dim", lambda: 0)() == 4:
            self._stem_input = inputs[0]

    def _taking(self, index):
        def on_input(module, inputs):
            if index in self._taken or not inputs:
                return
            try:
                import torch
                x = inputs[0]
                if not torch.is_tensor(x) or not x.is_floating_point() or x.dim() < 2 or \
                        x.shape[0] < 2:
                    return
                with torch.no_grad():
                    reversed_stats = None
                    if self.stem is not None and index == self.stem[1] and \
                            self._stem_input is not None:
                        conv = self.stem[0]          # not its __call__: no hook sees this
                        turned = conv._conv_forward(self._stem_input.detach().flip(1),
                                                    conv.weight, conv.bias)
                        reversed_stats = self._moments(turned)
                    self._taken[index] = (self._order, self._moments(x), reversed_stats,
                                          bool(module.training))
                    self._order += 1
            except Exception as error:      # never break the user's forward
                self.on_error(error)
        return on_input

    @staticmethod
    def _moments(x):
        dims = [0] + list(range(2, x.dim()))
        x = x.detach().float()
        return x.mean(dims), x.var(dims, unbiased=False)

    def disarm(self):
        for handle in self._handles:
            handle.remove()
        self._handles = []
        self._stem_input = None

    def close(self):
        self.disarm()
        self.done = True            # the copies stay: read() compares with them at findings

    def _distance(self, moments, mean, var):
        batch_mean, batch_var = (m.detach().float().cpu() for m in moments)
        std = (var.float().cpu() + PRETRAINED_NORM_EPS).sqrt()
        shift = ((batch_mean - mean.float().cpu()).abs() / std).tolist()
        ratio = (batch_var + PRETRAINED_NORM_EPS) / (var.float().cpu() + PRETRAINED_NORM_EPS)
        return _median(shift), _median([math.log10(r) for r in ratio.tolist() if r > 0])

    def read(self):
        """The kept statistics against the pretrained ones (at findings)."""
        if not self._taken:
            return
        try:
            rows = []
            for index, (order, moments, reversed_stats, training) in sorted(self._taken.items()):
                name, _, mean, var = self.layers[index]
                shift, log_ratio = self._distance(moments, mean, var)
                turned = self._distance(reversed_stats, mean, var) if reversed_stats else None
                rows.append((name, order, int(mean.numel()), training, shift, log_ratio,
                             list(turned) if turned else None))
            self.observed.pretrained_norm_inputs[:] = rows
            self._taken = {}
        except Exception as error:
            self.on_error(error)

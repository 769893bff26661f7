"""The model's own input written in place by its forward (INPUT_MODIFIED_IN_PLACE,
``nndebug.rules.in_place_inputs``).

A layer written by hand that does ``x += noise``, ``x.clamp_(0, 1)``, ``x.sub_(mean)`` or
starts with ``nn.ReLU(inplace=True)`` writes into the tensor the caller handed to the model.
When that tensor is a fresh batch (a DataLoader's collated copy) nothing is lost. When it
shares memory with data the loop keeps - a slice ``x_train[i:i + 64]`` (a view), or the whole
training tensor passed again every step - the change stays in the data: noise piles up epoch
after epoch, a clamp or a normalisation is applied again and again, and the model trains on
data that drifts away from what it is evaluated on.

How it is seen (torch): on the first ``IN_PLACE_INPUT_STEPS`` recorded steps a forward
pre-hook on the model notes the version counter of each floating-point input (torch's own
count of in-place writes, shared by a tensor and its views: what autograd checks before
using a saved tensor); a forward hook compares it after the call. A moved count means the
forward wrote into its input. For such an input it notes whether it is a view of a larger
tensor (``x._base``) and whether its memory was already an input on an earlier watched
step (the same storage fed again). Python integers only: no host transfer, no device work;
no hook after those steps (the hooks go when the step's recording ends).

Kept in ``run.observed.in_place_inputs`` as ``[(step, shape, view of a larger tensor,
elements of the tensor it views, storage fed on an earlier watched step)]``, one row per
watched forward that wrote into an input.
"""
IN_PLACE_INPUT_STEPS = 3    # [design] recorded steps watched (a model's forward does the same
                            # thing on every training step)
IN_PLACE_INPUT_LEAVES = 4   # [design] floating-point inputs of one call looked at
IN_PLACE_INPUT_ROWS = 8     # [design] rows kept at most


class InPlaceInputs:
    def __init__(self, adapter, observed, root, on_error):
        self.adapter, self.observed, self.root, self.on_error = adapter, observed, root, on_error
        self.enabled = adapter.framework == "torch" and root is not None
        self.steps = 0
        self._step = None
        self._handles = []
        self._noted = None            # [(tensor, version)] of the outermost call in flight
        self._depth = 0
        self._storages = {}           # storage pointer -> the input of an earlier watched step
        self._this_step = {}          # (kept alive while watching: a freed batch's memory
                                      # could otherwise come back as the next batch's)

    def arm(self, step):
        """Hook the model for recorded step ``step`` (not after IN_PLACE_INPUT_STEPS steps)."""
        if not self.enabled or self.steps >= IN_PLACE_INPUT_STEPS or step is None:
            return
        self.steps += 1
        self._step = int(step)
        try:
            self._handles = [self.adapter.add_forward_pre_hook(self.root, self._on_input),
                             self.adapter.add_forward_hook(self.root, self._on_output)]
        except Exception as error:      # a model without hooks: nothing is read
            self.disarm()
            self.enabled = False
            self.on_error(error)

    def disarm(self):
        for handle in self._handles:
            handle.remove()
        self._handles = []
        self._noted = None
        self._depth = 0
        self._storages.update(self._this_step)
        self._this_step = {}
        if self.steps >= IN_PLACE_INPUT_STEPS:
            self._storages = {}         # the last watched step is over: let the inputs go

    @staticmethod
    def _storage(tensor):
        try:
            return tensor.untyped_storage().data_ptr()
        except Exception:               # a tensor without storage (meta, sparse)
            return None

    def _on_input(self, module, inputs):
        self._depth += 1
        if self._depth > 1:
            return                      # the model called inside itself: the outer call counts
        try:
            leaves = self.adapter.float_leaves(inputs)[:IN_PLACE_INPUT_LEAVES]
            self._noted = [(x, self.adapter.version_counter(x)) for x in leaves]
        except Exception as error:      # never break the user's forward
            self._noted = None
            self.on_error(error)

    def _on_output(self, module, inputs, output):
        self._depth = max(self._depth - 1, 0)
        if self._depth:
            return
        noted, self._noted = self._noted, None
        try:
            for tensor, version in noted or ():
                storage = self._storage(tensor)
                if self.adapter.version_counter(tensor) != version and \
                        len(self.observed.in_place_inputs) < IN_PLACE_INPUT_ROWS:
                    base = getattr(tensor, "_base", None)
                    larger = base is not None and base.numel() > tensor.numel()
                    self.observed.in_place_inputs.append(
                        (self._step, [int(n) for n in tensor.shape], bool(larger),
                         int(base.numel()) if base is not None else int(tensor.numel()),
                         storage is not None and storage in self._storages))
                if storage is not None:
                    self._this_step[storage] = tensor
        except Exception as error:      # never break the user's forward
            self.on_error(error)

    def close(self):
        self.disarm()
        self._storages = {}
        self.enabled = False

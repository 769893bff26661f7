"""The model's first training call over token ids, kept to be run again with the ids edited
(on a private copy), for the checks that ask "what does this output read?" of a sequence
model that the dependency probes leave alone: ``order_blind_attention.py`` (does the
order of the tokens reach the output at all?) and ``document_boundaries.py`` (does a
document packed in a row read the documents before it?).

What it keeps (torch): references to the positional and keyword inputs of the first
training-mode call of the model that holds a 2-D integer tensor (the token ids); nothing
is copied during the step. The pre-hook that hears that call goes at the next recorded
step (``release``: never from inside torch's loop over the hooks). When findings are
asked for, ``rerun`` builds one private float64 copy of the model (eval mode, nndebug's
hooks left behind, the RNG forked and replayed) and runs it on the kept inputs as edited:
a few forward passes, once per run.
"""
import numpy as np

MAX_PARAMETERS = 20_000_000   # [design] larger models are not copied inside watch (as the
                              # dependency probes: a float64 copy doubles the memory)
ID_KEYWORDS = ("input_ids", "ids", "idx", "tokens", "src", "x")   # [design] keyword names
                              # a model's token ids go by, tried in this order


class FirstTokenCall:
    """Keeps the first training call that carries token ids (see the module doc)."""

    def __init__(self, adapter, wanted, current_step, on_error):
        self.adapter, self.on_error = adapter, on_error
        self.current_step = current_step
        self.step = None           # the step of the kept call
        self.args = self.kwargs = None
        self.where = None          # ("arg", i) or ("kwarg", name): the token ids' place
        self._handle = None
        if not wanted or adapter.framework != "torch" or \
                adapter.parameter_count(trainable_only=False) > MAX_PARAMETERS:
            return
        try:
            self._handle = adapter.add_forward_pre_hook(adapter.model, self._on_call,
                                                        with_kwargs=True)
        except Exception as error:         # a model without pre-hooks: nothing kept
            on_error(error)

    def _on_call(self, module, args, kwargs):
        try:
            if self.where is not None or not self.adapter.is_training(module):
                return
            where = self._token_ids_place(args, kwargs)
            if where is not None:
                self.args = tuple(args)
                self.kwargs = dict(kwargs or {})
                self.where = where
                self.step = self.current_step()
        except Exception as error:         # never break the user's forward pass
            self.on_error(error)

    def _token_ids_place(self, args, kwargs):
        def is_ids(value):
            return self.adapter.is_tensor(value) and value.dim() == 2 and \
                not value.is_floating_point() and value.dtype != _bool_dtype()
        for name in ID_KEYWORDS:
            if is_ids((kwargs or {}).get(name)):
                return ("kwarg", name)
        for i, value in enumerate(args):
            if is_ids(value):
                return ("arg", i)
        return None

    def release(self):
        """Remove the pre-hook once a call was kept (called from a recorded step's arming,
        outside torch's loop over the hooks), or when the monitor closes."""
        if self._handle is not None and self.where is not None:
            self._handle.remove()
            self._handle = None

    def close(self):
        if self._handle is not None:
            self._handle.remove()
            self._handle = None

    def forget(self):
        """Drop the kept inputs (once read: they hold a batch)."""
        self.args = self.kwargs = None

    # --- reading --------------------------------------------------------------------------
    def token_ids(self):
        """The kept token ids as a host array (None when no call was kept)."""
        if self.where is None or self.args is None:
            return None
        return np.asarray(self.adapter.to_numpy(self._get(self.args, self.kwargs)))

    def other_tensors(self):
        """{place: host array} of the kept call's other tensors of the ids' shape (or of one
        row of it, broadcast over the batch, as position ids often are)."""
        ids = self._get(self.args, self.kwargs)
        found = {}
        places = [("arg", i) for i in range(len(self.args))] + \
            [("kwarg", k) for k in self.kwargs]
        for place in places:
            value = self._get(self.args, self.kwargs, place)
            if place == self.where or not self.adapter.is_tensor(value) or value.dim() != 2:
                continue
            if tuple(value.shape) == tuple(ids.shape) or \
                    (value.shape[0] == 1 and value.shape[1] == ids.shape[1]):
                array = np.asarray(self.adapter.to_numpy(value))   # (1, T) read for every row
                found[place] = np.broadcast_to(array, tuple(ids.shape))
        return found

    def rerun(self, edits, seed=0):
        """[first float output as float64 host array] of a private copy of the model run
        on the kept call once per edit: an edit is the token ids to use (a host array), or
        ``{place: host array}`` for several of the call's tensors (the ids' place is
        ``self.where``; places as ``other_tensors`` names them). None when the copy cannot
        run them (a model that will not take float64, or these inputs): nothing to say, as
        the dependency probes say nothing of inputs they cannot handle."""
        try:
            return self._rerun(edits, seed)
        except Exception:
            return None

    def _rerun(self, edits, seed):
        import torch
        work = self.adapter.private_copy(np.float64)
        work.model.eval()
        outputs = []
        with self.adapter.forked_rng(seed) as replay, torch.no_grad():
            for edit in edits:
                if not isinstance(edit, dict):
                    edit = {self.where: edit}
                args, kwargs = list(self.args), dict(self.kwargs)
                for place, array in edit.items():
                    original = self._get(self.args, self.kwargs, place)
                    tensor = torch.as_tensor(np.ascontiguousarray(array), dtype=original.dtype,
                                             device=original.device)
                    kind, key = place
                    if kind == "arg":
                        args[key] = tensor
                    else:
                        kwargs[key] = tensor
                replay()
                outputs.append(_first_float(work.model(*args, **kwargs)))
        return outputs

    def _get(self, args, kwargs, place=None):
        kind, key = place or self.where
        return args[key] if kind == "arg" else kwargs[key]


def _bool_dtype():
    import torch
    return torch.bool


def _first_float(output):
    """The first float tensor of a model's output (a tensor, a tuple, a dict: ``logits``
    first), as a float64 host array; None when there is none."""
    import torch
    if isinstance(output, dict):
        values = [output["logits"]] if "logits" in output else []
        values += list(output.values())
    elif isinstance(output, (tuple, list)):
        values = list(output)
    else:
        values = [output]
    for value in values:
        if isinstance(value, torch.Tensor) and value.is_floating_point():
            return value.detach().double().cpu().numpy()
    return None

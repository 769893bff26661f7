"""Run a private copy of the model on rearranged inputs and read what came out.

Every probe asks the same two questions of the model: "what are your outputs (and the
outputs of each of your modules) for these inputs?" and "which inputs does this part of
your output depend on?" (the gradient). The ``Runner`` answers them on a private float64
copy of the model, so nothing of the user's model, its modes or its RNG is touched, and
float64 makes "this output did not change" a sharp statement.

The copy runs in eval mode: batch-norm in training mode normalises with the batch's
statistics, which mixes samples by design, and dropout - as a layer, or inside attention
and user code through ``self.training`` - draws a different mask for every sample, which
would look like a dependence.

Forwards run without a graph, except when that gives non-finite outputs: torch's
transformer layers take an inference fast path in eval mode without a graph, and it
reads a float attention mask differently from the training path - a SASRec whose
"causal" mask was ``torch.tril(torch.ones(T, T))`` (added to the scores, hiding nothing:
real-bug batch 319) got NaN at its padded queries there, finite outputs in training, and
the probes gave up ("the output holds NaN or inf"). Such a model is then run with the
graph on, the path its training took.
"""
from dataclasses import dataclass

import numpy as np

from .._training import grad_enabled, no_grad
from .batch import array_leaves



@dataclass
class Call:
    """One module call: its name, and its first float input and output arranged samples
    first (None when the layout is not recognised). Comparing a call's input and output
    tells whether a dependence arose inside this module or reached it from before."""
    name: str
    input: "np.ndarray | None"
    output: "np.ndarray | None"


class ModelFailed(RuntimeError):
    """The model could not run on the rearranged inputs (e.g. it hard-codes its batch size)."""


class Runner:
    def __init__(self, adapter, replay):
        self.work = adapter.private_copy(np.float64)
        self.replay = replay
        self.n_forward = 0
        self.n_backward = 0
        self.switched = [name for name, module in self.work.named_modules() if module.training]
        self.work.model.eval()
        self.names = {id(m): n for n, m in self.work.named_modules()}
        self.good_size = None  # a batch size the model is known to accept
        self.chunk = None      # rows per call, when the model only accepts that batch size
        self.fold_positions = False   # outputs flattened per position are folded per sample
        self.training_path = False    # forwards keep the graph (see the module doc)

    # --- forward -------------------------------------------------------------------
    def forward(self, tree, rows, length=None, capture=False):
        """(main output, module calls) for an input tree of ``rows`` samples.

        The main output is the first float tensor the model returns, as a float64 array with
        the samples first. ``module calls`` (when ``capture``) is a list of ``Call``, in the
        order the calls finished. Runs in chunks if the model refuses the
        whole batch at once (some models hard-code their batch size).
        """
        if self.chunk is None or rows == self.chunk:
            try:
                result = self._forward_once(tree, rows, length, capture)
            except ModelFailed:
                if self.chunk is not None or self.good_size in (None, rows):
                    raise
                self.chunk = self.good_size     # this model only runs on batches of that size
            else:
                self.good_size = self.good_size or rows
                return result
        return self._forward_chunked(tree, rows, length, capture)

    def forward_drawing_anew(self, tree, rows, length=None):
        """Like ``forward``, without replaying the RNG first: a model that draws random numbers
        (in eval mode) gives another output at each call."""
        replay, self.replay = self.replay, lambda: None
        try:
            return self.forward(tree, rows, length)[0]
        finally:
            self.replay = replay

    def _forward_chunked(self, tree, rows, length, capture):
        from .batch import Batch
        batch = Batch(tree)
        outs, per_call = [], None
        for start in range(0, rows, self.chunk):
            picked = list(range(start, min(rows, start + self.chunk)))
            padded = picked + [picked[0]] * (self.chunk - len(picked))
            out, calls = self._forward_once(batch.rows(padded), self.chunk, length, capture)
            outs.append(out[:len(picked)])
            if capture:
                per_call = [[c] for c in calls] if per_call is None else \
                    [acc + [c] for acc, c in zip(per_call, calls)]
        calls = [Call(acc[0].name, _joined([c.input for c in acc], len(picked), self.chunk),
                      _joined([c.output for c in acc], len(picked), self.chunk))
                 for acc in per_call or []]
        return np.concatenate(outs), calls

    def forward_edited(self, tree, rows, length, edit):
        """Like ``forward(..., capture=True)``, with ``edit(module, args, output)`` called first
        after every module call: it may change the output in place (the padding probe changes
        what an embedding returned at padded positions). Not in chunks."""
        if self.chunk is not None and rows != self.chunk:
            raise ModelFailed(f"the model only accepts batches of {self.chunk} samples")
        return self._forward_once(tree, rows, length, True, edit)

    def _forward_once(self, tree, rows, length, capture, edit=None):
        calls, handles = [], []

        def arranged(value):
            leaf = _first_float(self.work, value)
            return None if leaf is None else _samples_first(leaf, rows, length)

        def record(module, args, output):
            calls.append(Call(self.names.get(id(module), "?"), arranged(args), arranged(output)))

        if edit is not None:
            for name, module in self.work.named_modules():
                if name:
                    handles.append(self.work.add_forward_hook(module, edit))
        if capture:
            for name, module in self.work.named_modules():
                if name:
                    handles.append(self.work.add_forward_hook(module, record))
        try:
            output = self._call(tree)
            main = _main_output(self.work, output, rows)
            if main is not None and not self.training_path and \
                    self.work.framework == "torch" and not np.all(np.isfinite(main)):
                self.training_path = True           # the inference fast path's NaN
                del calls[:]
                output = self._call(tree)
                main = _main_output(self.work, output, rows)
        except Exception as error:
            raise ModelFailed(f"{type(error).__name__}: {error}") from error
        finally:
            for handle in handles:
                handle.remove()
        self.n_forward += 1
        if main is None:
            raise ValueError("check_dependencies expected the model to return a float tensor "
                             f"(or a tuple/dict holding one), got {type(output).__name__}")
        if self.fold_positions:
            main = folded_per_sample(main, rows)
        if main.ndim == 0 or main.shape[0] != rows:
            raise ValueError(f"check_dependencies expected the model's output to have one row "
                             f"per sample ({rows}), got shape {main.shape}; the probes need "
                             "batch-first outputs (pass batch_first data, or wrap the model)")
        return main, calls

    def _call(self, tree):
        """The model's output for ``tree``: without a graph, or with it once the inference
        path gave non-finite outputs (``training_path``)."""
        self.replay()
        graph = grad_enabled if self.training_path else no_grad
        with self.work.default_dtype(np.float64), graph(self.work):
            return self.work.call_model(self.work.model, self.work.prepare(tree))

    # --- gradient -------------------------------------------------------------------
    def input_gradient(self, tree, primary, cotangent):
        """d<main output, cotangent>/d(primary input array), as a float64 array.

        ``primary`` is the index of the (float) input array among the tree's arrays.
        """
        rows = cotangent.shape[0]
        if self.chunk is not None and rows != self.chunk:
            raise ModelFailed(f"the model only accepts batches of {self.chunk} samples")
        floats = [i for i, a in enumerate(array_leaves(tree)) if a.dtype.kind == "f"]
        slot = floats.index(primary)

        def contract(output, _targets):
            main = _main_tensor(self.work, output, rows)
            if tuple(main.shape) != cotangent.shape:      # flattened per position: fold
                main = main.reshape(cotangent.shape)
            return (main * self.work.from_numpy(cotangent, like=main)).sum()

        try:
            self.replay()
            with self.work.default_dtype(np.float64):
                _, _, grads = self.work.loss_and_grads(tree, None, contract, wrt_inputs=True)
        except Exception as error:
            raise ModelFailed(f"{type(error).__name__}: {error}") from error
        self.n_forward += 1
        self.n_backward += 1
        grad = grads[slot]
        return np.zeros(array_leaves(tree)[primary].shape) if grad is None else grad


def _first_float_tensor(adapter, value):
    if isinstance(value, (tuple, list)):
        for v in value:
            found = _first_float_tensor(adapter, v)
            if found is not None:
                return found
        return None
    if isinstance(value, dict):
        return _first_float_tensor(adapter, list(value.values()))
    leaves = adapter.float_leaves(value) if adapter.is_tensor(value) else []
    return leaves[0] if leaves else None


def _float_tensors(adapter, value):
    """Every float tensor in a model's output (tensor, tuple/list, dict), in order."""
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _float_tensors(adapter, v)]
    if isinstance(value, dict):
        return _float_tensors(adapter, list(value.values()))
    return adapter.float_leaves(value) if adapter.is_tensor(value) else []


def _main_tensor(adapter, output, rows):
    """The output the probes read: the first float tensor with one row per sample (a dict
    output may begin with a scalar loss, as Hugging Face's do when given labels)."""
    tensors = _float_tensors(adapter, output)
    for tensor in tensors:
        shape = tuple(tensor.shape)
        if shape and shape[0] == rows:
            return tensor
    return tensors[0] if tensors else None


def _main_output(adapter, output, rows):
    tensor = _main_tensor(adapter, output, rows)
    return None if tensor is None else adapter.to_numpy(tensor).astype(np.float64)


def folded_per_sample(main, rows):
    """The main output with one row per sample. A per-position output flattened for the loss
    - ``logits.view(-1, V)`` gives (rows * k, V) - is folded back to (rows, k, V), sample-major,
    as the targets flattened beside it are (``_per_sample``): without it no probe could read
    a tagger or a language model that returns its logits ready for ``cross_entropy``, and a
    flattening of the wrong layout, (time, batch) read as (batch, time), would go unseen.
    Used when the targets say the rows are positions (``Runner.fold_positions``): rows that
    are, say, two views of every sample stacked view-major must not be read this way."""
    if main.ndim >= 1 and rows > 1 and main.shape[0] != rows and main.shape[0] % rows == 0:
        return main.reshape((rows, main.shape[0] // rows) + main.shape[1:])
    return main


def _first_float(adapter, value):
    tensor = _first_float_tensor(adapter, value)
    return None if tensor is None else adapter.to_numpy(tensor).astype(np.float64)


def _joined(arrays, last_rows, chunk):
    """Chunk results put back together (the padding rows of the last chunk dropped)."""
    if any(a is None for a in arrays):
        return None
    return np.concatenate(arrays[:-1] + [arrays[-1][:last_rows]]) if last_rows < chunk else \
        np.concatenate(arrays)


def _samples_first(array, rows, length):
    """A module's output with the samples on axis 0, or None when its layout is unknown:
    (rows, ...) as is; (rows * length, ...) folded; (length, rows, ...) (sequence-first
    layers inside a batch-first model) transposed; other (rows * k, ...) flattened to one
    row per sample (image rows or heads folded into the batch, sample-major)."""
    if array.ndim == 0:
        return None
    if array.shape[0] == rows:
        return array
    if length and array.shape[0] == rows * length:
        return array.reshape((rows, length) + array.shape[1:])
    if length and array.ndim >= 2 and array.shape[0] == length and array.shape[1] == rows:
        return np.swapaxes(array, 0, 1)
    if array.shape[0] % rows == 0:       # (rows * k, ...), sample-major: one flat row each
        return array.reshape(rows, -1)
    return None

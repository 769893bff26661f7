"""What state each recurrent layer starts a training window from, and whether consecutive
training batches are consecutive windows of the same text
(STATE_RESET_BETWEEN_CONTIGUOUS_WINDOWS, ``nndebug.rules.contiguous_windows``).

Truncated backpropagation through time on a corpus cuts the text into B parallel streams
("batchify") and reads them a window at a time: batch k+1 continues, stream by stream, where
batch k ended. The recipe hands the (detached) recurrent state from one window to the next;
started again from nothing (``hx=None``, zeros, or an LSTM's cell state ``c`` zeroed while
``h`` goes on) the model loses all context at every window border. Nothing crashes and the
loss falls, so the evidence is the state itself beside the data's layout: a reset is
healthy when the windows are independent (shuffled, or separate sentences) and a bug only
when they continue each other.

How it is seen (torch): on the first ``STEPS_READ`` recorded steps (the default schedule's
0, 1, 2: consecutive), a forward pre-hook on each ``nn.RNNBase`` (RNN, LSTM, GRU) notes
what initial state its first training call of the step received (``hx``, second argument
or keyword), and a forward pre-hook on each ``nn.Embedding`` keeps the ids of the step's
first training lookup of 2-D integer ids. When the step ends, the loss call's targets
(``loss_capture.py``; flattened ones are laid back out as the ids) tell the layout: a
language model's targets are its inputs shifted by one along the time axis, in the
sequence-first ``(T, B)`` layout or the batch-first ``(B, T)`` one. Kept for each stream:
the window's first input id and its last target id - batch k's last target of a stream is
batch k+1's first input of that stream exactly when the windows are contiguous. No row is
kept when the targets are not the inputs shifted (no language model: nothing to continue).

Kept in ``run.observed.window_borders`` as ``[(step, time axis of the ids (0: sequence-
first, 1: batch-first), streams, [first input id of each kept stream], [last target id of
each kept stream], [(recurrent layer, state kind)])]``; a state kind is one of
``STATE_KINDS``. Cost: nothing on a model without a recurrent layer and an embedding; else
two hooks per such layer on three steps, and two small host reads (a few numbers, then at
most ``STREAMS_KEPT`` ids twice) when each of those steps ends. Nothing after them.
"""
from .reversed_steps import recurrent_modules

STEPS_READ = 3          # [design] recorded steps read: the default schedule records steps 0,
                        # 1 and 2 first, two consecutive pairs of windows
STREAMS_KEPT = 64       # [design] streams whose border ids are kept (batchified corpora use
                        # 10-128 streams; 64 leave no doubt about a share of 90%)
SHIFT_MATCH = 0.9       # [design] share of positions where the targets are the inputs one step
                        # later for the batch to count as a language model's; a next-token
                        # target is exactly the next input, so only a padded tail lowers it
STATE_KINDS = ("none", "zeros", "c_zeros", "h_zeros", "carried")
STATE_POSITION = 1      # rnn(input, hx): the state comes second
STATE_KEYWORD = "hx"


class WindowBorders:
    def __init__(self, adapter, observed, on_error=lambda error: None):
        self.adapter, self.observed, self.on_error = adapter, observed, on_error
        self.enabled = adapter.framework == "torch"
        self.steps_read, self._step, self._handles = 0, None, []
        self._layers = None          # ([(name, recurrent module)], [embedding modules]), once
        self._ids, self._states = None, {}

    def arm(self, step):
        if not self.enabled or self.steps_read >= STEPS_READ or step is None:
            return
        try:
            if self._layers is None:
                self._layers = _watched_layers(self.adapter.model)
            recurrent, embeddings = self._layers
            if not recurrent or not embeddings:
                self.enabled = False        # nothing to read, ever
                return
            self.steps_read += 1
            self._step, self._ids, self._states = int(step), None, {}
            add = self.adapter.add_forward_pre_hook
            self._handles = [add(module, self._state_hook(name), with_kwargs=True)
                             for name, module in recurrent]
            self._handles += [add(module, self._on_lookup) for module in embeddings]
        except Exception as error:          # a model without working hooks: nothing is read
            self.enabled = False
            self.disarm()
            self.on_error(error)

    def disarm(self):
        for handle in self._handles:
            handle.remove()
        self._handles = []

    def _state_hook(self, name):
        def before(module, args, kwargs):
            try:
                if name not in self._states and _training_call(module):
                    self._states[name] = _state_counts(args, kwargs)
            except Exception as error:      # never break the user's forward
                self.on_error(error)
        return before

    def _on_lookup(self, module, inputs):
        try:
            if self._ids is None and _training_call(module) and inputs:
                ids = inputs[0]
                if self.adapter.is_tensor(ids) and ids.ndim == 2 and \
                        not ids.is_floating_point() and not ids.is_complex():
                    self._ids = ids.detach()
        except Exception as error:          # never break the user's forward
            self.on_error(error)

    def on_loss(self, step, call):
        """The recorded step ``step`` ended; ``call``: its loss call (name, output, target),
        or None. Keeps the step's row when the batch is a language model's."""
        ids, states, self._ids, self._states = self._ids, self._states, None, {}
        if step is None or int(step) != self._step or ids is None or not states or \
                call is None or call[2] is None:
            return
        try:
            row = _border_row(ids, call[2])
            if row is not None:
                time_axis, streams, first, last = row
                self.observed.window_borders.append(
                    (self._step, time_axis, streams, first, last,
                     [(name, _state_kind(counts)) for name, counts in sorted(states.items())]))
        except Exception as error:          # never break the user's step
            self.on_error(error)


def _watched_layers(model):
    """The model's recurrent layers, and its embedding tables (the token lookups)."""
    import torch
    embeddings = [m for m in model.modules() if isinstance(m, torch.nn.Embedding)]
    return recurrent_modules(model), embeddings


def _training_call(module):
    """A call that trains: the module in training mode, gradients on (not an evaluation
    forward run between two training steps)."""
    import torch
    return bool(getattr(module, "training", False)) and torch.is_grad_enabled()


def _state_counts(args, kwargs):
    """The non-zero entries of each part of the initial state a recurrent call received
    (h, or h and c for an LSTM), as a device tensor read when the step ends; None when it
    received no state."""
    import torch
    state = args[STATE_POSITION] if len(args) > STATE_POSITION else kwargs.get(STATE_KEYWORD)
    if state is None:
        return None
    parts = list(state) if isinstance(state, (tuple, list)) else [state]
    if not parts or not all(isinstance(p, torch.Tensor) for p in parts):
        return None
    return torch.stack([p.detach().count_nonzero() for p in parts])


def _state_kind(counts):
    """One of STATE_KINDS from ``_state_counts``' result."""
    if counts is None:
        return "none"
    nonzero = [int(n) > 0 for n in counts.tolist()]
    if not any(nonzero):
        return "zeros"
    if len(nonzero) == 2 and nonzero[0] != nonzero[1]:
        return "c_zeros" if nonzero[0] else "h_zeros"
    return "carried"


def _target_layouts(ids, target):
    """The loss targets laid out as the ids: as they come (or flattened in the ids' order),
    and flattened in the transposed order (a (B, T) target of (T, B) ids)."""
    if target.numel() != ids.numel():
        return []
    rows, columns = ids.shape
    return [target.reshape(rows, columns), target.reshape(columns, rows).t()]


def _shift_shares(ids, layouts):
    """For each layout and time axis (0, then 1), the share of positions whose target is the
    input one step later along that axis; one host read."""
    import torch
    shares = []
    for target in layouts:
        for axis in (0, 1):
            if ids.shape[axis] < 2:
                shares.append(torch.zeros((), device=ids.device))
                continue
            later = ids.narrow(axis, 1, ids.shape[axis] - 1)
            earlier = target.narrow(axis, 0, ids.shape[axis] - 1)
            shares.append((earlier == later).float().mean())
    return torch.stack(shares).tolist()


def _border_row(ids, target):
    """(time axis, streams, first input ids, last target ids) of a language model's batch,
    the ids of at most STREAMS_KEPT streams; None when the targets are not the inputs
    shifted by one step."""
    if ids.ndim != 2 or getattr(target, "is_floating_point", lambda: True)():
        return None
    layouts = _target_layouts(ids, target.detach())
    if not layouts:
        return None
    shares = _shift_shares(ids, layouts)
    best = max(range(len(shares)), key=lambda i: shares[i])
    if shares[best] < SHIFT_MATCH:
        return None
    target, time_axis = layouts[best // 2], best % 2
    streams = ids.shape[1 - time_axis]
    first = ids.select(time_axis, 0)[:STREAMS_KEPT]
    last = target.select(time_axis, target.shape[time_axis] - 1)[:STREAMS_KEPT]
    return time_axis, int(streams), [int(v) for v in first.tolist()], \
        [int(v) for v in last.tolist()]

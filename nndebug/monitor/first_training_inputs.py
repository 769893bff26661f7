"""The model's inputs on its first training forwards, kept for observers that compare them
with the targets when findings are asked for (``target_values_in_features.py``: a feature
that holds the target's value; ``identical_input_rows.py``: one input with two labels).

What it keeps (torch only): for each of the model's first ``KEPT_FORWARDS`` training
forwards (gradients on), the step it belongs to, a detached reference to the first float
tensor of the model's FIRST argument (the data; a carried recurrent state comes after it)
and to the first float tensor of any argument; which integer arguments are equal element for
element (``equal_id_arguments``, real-bug batches 314-315); and (real-bug batch 226) whether that first
argument is a view that reorders its base's axes (``axis_views``: taken in the hook, since a
detached copy no longer knows its base). One forward pre-hook, removed after those
forwards: no per-step cost after them, and one hook where each observer had its own.
"""
import numpy as np

from .transposing_reshapes import input_axis_view

KEPT_FORWARDS = 4          # [design] training forwards whose inputs are kept: the loss
                           # capture keeps the targets of the first 4 calls
MIN_ID_VALUES = 16         # [design] an id argument compared with the others holds at least
                           # this many values (a batch of texts, not a scalar or a flag)
MIN_DISTINCT_IDS = 3       # [design] and, when equal to another, at least 3 distinct values:
                           # two masks or two all-zero token-type tensors agree by design


class FirstTrainingInputs:
    def __init__(self, adapter, root, current_step, on_error):
        self.adapter, self.current_step, self.on_error = adapter, current_step, on_error
        self.kept = []             # [(step, first argument's float tensor or None,
                                   #   first float tensor of any argument or None)]
        self.equal_arguments = []  # [(step, id arguments compared in pairs, [[i, j], ...]
                                   #   positional arguments equal element for element)]
        self.axis_views = []       # [(step, base shape, shape, axis order)]: the first
                                   # argument a view that reorders its base's axes
                                   # (transposing_reshapes.input_axis_view, batch 226)
        self._forwards, self._hook = 0, None
        if adapter.framework == "torch" and root is not None:
            import torch
            self._grad_enabled = torch.is_grad_enabled
            self._hook = adapter.add_forward_pre_hook(root, self._before_forward)

    def _before_forward(self, module, inputs):
        if not self._grad_enabled():
            return                         # evaluation: not what is trained on
        try:
            first = self.adapter.float_leaves(inputs[:1])
            anywhere = first or self.adapter.float_leaves(inputs)
            view = input_axis_view(first[0]) if first else None
            if view is not None and len(self.axis_views) < KEPT_FORWARDS:
                self.axis_views.append((self.current_step(), *view))
            self.equal_arguments.append((self.current_step(), *equal_id_arguments(inputs)))
            self.kept.append((self.current_step(),
                              self.adapter.detach(first[0]) if first else None,
                              self.adapter.detach(anywhere[0]) if anywhere else None))
        except Exception as error:         # never break the user's forward pass
            self.on_error(error)
        self._forwards += 1
        if self._forwards >= KEPT_FORWARDS:
            self.close()

    def by_step(self, which):
        """{step: kept tensor} (the step's last training forward), ``which`` being
        "first argument" or "any argument"; steps without such a tensor left out."""
        place = 1 if which == "first argument" else 2
        return {row[0]: row[place] for row in self.kept if row[place] is not None}

    def paired_with(self, targets, which):
        """(step, input, target) as NumPy arrays, for each of ``targets`` (``(step, target)``
        rows: ``run.observed.targets``) whose step has a kept input (``by_step(which)``):
        the pairs the observers compare, copied to the host when findings are asked for."""
        inputs = self.by_step(which)
        for step, target in targets:
            kept = inputs.get(step)
            if kept is None or step is None:
                continue
            yield (int(step), np.asarray(self.adapter.to_numpy(kept)),
                   np.asarray(self.adapter.to_numpy(target)))

    def close(self):
        if self._hook is not None:
            self._hook.remove()
            self._hook = None


def equal_id_arguments(inputs):
    """(pairs compared, [[i, j], ...]): the model's positional integer arguments (ids, at
    least MIN_ID_VALUES of them) of one shape that are equal element for element and take
    MIN_DISTINCT_IDS values or more. A pair model whose second text was tokenised from the
    first (real-bug batch 314), token types collated from the input ids (batch 315): the
    model is given one tensor twice, and what the second was meant to carry never reaches
    it (INPUT_FEATURES_DUPLICATED, ``rules/duplicated_inputs.py``). On the device: one
    comparison per pair of the first training forwards, a count of distinct values only for
    an equal pair."""
    import torch
    ids = [(i, t) for i, t in enumerate(inputs)
           if isinstance(t, torch.Tensor) and not t.is_floating_point() and not t.is_complex()
           and t.dtype != torch.bool and t.numel() >= MIN_ID_VALUES]
    compared, equal = 0, []
    for a, (i, x) in enumerate(ids):
        for j, y in ids[a + 1:]:
            if x.shape != y.shape:
                continue
            compared += 1
            if torch.equal(x, y) and int(torch.unique(x).numel()) >= MIN_DISTINCT_IDS:
                equal.append([i, j])
    return compared, equal


class FirstInputsReader:
    """An observer that measures each kept first-argument batch when findings are asked
    for and keeps the rows in one ``Observed`` field. A subclass names the ``field`` and
    writes ``measure(step, batch)``: a row, or None when the batch is not read.

    Most of these findings need their sign in EVERY batch read (a cast, a copied column, a
    wrap is made the same way on each): a subclass whose rule says so writes
    ``rules_out(row)``, true when this one row already rules the finding out, and the
    batches after it are not measured (a healthy run pays for its first batch only). The
    rows kept end with that row, so the rule reaches the same verdict."""
    field = None

    def __init__(self, adapter, observed, inputs, on_error):
        """``inputs``: the shared ``FirstTrainingInputs``."""
        self.adapter, self.observed, self.on_error = adapter, observed, on_error
        self.inputs = inputs

    def measure(self, step, batch):
        raise NotImplementedError

    def rules_out(self, row):
        """True when ``row`` alone rules the finding out (class doc); never by default."""
        return False

    def read(self):
        """Set the field from the kept inputs (host copies, once per findings); a later
        read that finds nothing keeps what an earlier one found."""
        try:
            found = []
            for step, batch in sorted(self.inputs.by_step("first argument").items()):
                row = self.measure(int(step), batch)
                if row is not None:
                    found.append(row)
                    if self.rules_out(row):
                        break
            if found or not getattr(self.observed, self.field):
                setattr(self.observed, self.field, found)
        except Exception as error:
            self.on_error(error)

"""Weight matrices whose units start as exact copies of each other and never stop being
copies (SYMMETRIC_INIT, ``nndebug.rules.init_values``; real-bug batch 80).

``nn.init.constant_(w, 0.5)`` (or ``fill_``, or any init giving every row of a weight the
same values) makes every unit of the layer compute the same function of its input. When the
layer after it cannot tell them apart either (its columns equal too: another constant
layer), every unit gets the same gradient and the same update, and the units stay copies for
the whole run: the layer is worth one unit. A zero-initialised head or residual branch also
starts with equal rows, but the loss gives its rows (one per class) different gradients at
the first step, so they part at once: what tells the bug is that the rows are STILL equal
when training has moved them.

How it is read: once, when ``watch`` starts (before the first forward), every trainable
floating-point parameter of two or more dimensions and two or more rows gives one number on
its device, the largest difference of any row from the first (``(w[1:] - w[:1]).abs().amax()``),
stacked per device and moved to the host together with its largest magnitude. Only the
parameters whose rows were exactly equal are kept (a reference and a copy of the first row), and at ``findings()`` those
few are read again: are their rows still equal, and did training move them? Cost: one pass
over the weights' memory and one host transfer per device, once; nothing during training;
at findings() nothing when no layer started with equal rows (the usual case).

Kept in ``run.observed.identical_units`` as ``[(name, shape, largest |w| at start, largest
|w| now, largest row difference now, largest change of the first row)]`` for the parameters
that started with equal rows (their first row is kept at start, a copy of one row each).
"""
import weakref

IDENTICAL_UNIT_ROWS = 16   # [design] parameters kept at most


class IdenticalUnits:
    """Reads the parameters at watch start; ``read()`` at findings fills the observed rows."""

    def __init__(self, adapter, observed, on_error):
        self.observed, self.on_error = observed, on_error
        self.kept = []                   # [(name, shape, weakref(param), |w| max at start,
                                         #   its first row at start)]
        if getattr(adapter, "framework", None) != "torch":
            return
        try:
            self._read_start(adapter)
        except Exception as error:       # never break the user's watch()
            on_error(error)

    def _read_start(self, adapter):
        import torch
        candidates = [(str(name), p) for name, p in adapter.named_parameters()
                      if p.is_floating_point() and p.dim() >= 2 and p.shape[0] >= 2
                      and p.numel() > 0       # a layer of zero inputs has no rows to compare
                      and p.device.type != "meta" and adapter.requires_grad(p)]
        if not candidates:
            return
        by_device = {}
        with torch.no_grad():
            for i, (_, p) in enumerate(candidates):
                rows = p.detach().reshape(p.shape[0], -1)
                spread = (rows[1:] - rows[:1]).abs().amax()
                peak = rows.abs().amax()
                by_device.setdefault(p.device, []).append((i, torch.stack([spread, peak])))
        for pairs in by_device.values():     # one host transfer per device
            values = torch.stack([v for _, v in pairs]).float().cpu().tolist()
            for (i, _), (spread, peak) in zip(pairs, values):
                if spread == 0.0 and len(self.kept) < IDENTICAL_UNIT_ROWS:
                    name, p = candidates[i]
                    first = p.detach().reshape(p.shape[0], -1)[0].clone()   # one row kept
                    self.kept.append((name, [int(n) for n in p.shape], weakref.ref(p),
                                      float(peak), first))

    def read(self):
        """At findings: the kept parameters' rows again (nothing to do when none was kept)."""
        if not self.kept:
            return
        try:
            import torch
            found = []
            with torch.no_grad():
                for name, shape, ref, start_peak, first in self.kept:
                    p = ref()
                    if p is None:
                        continue
                    rows = p.detach().reshape(p.shape[0], -1)
                    spread = float((rows[1:] - rows[:1]).abs().amax())
                    peak = float(rows.abs().amax())
                    moved = float((rows[0] - first).abs().amax())
                    found.append((name, shape, start_peak, peak, spread, moved))
            self.observed.identical_units[:] = found     # this observer's rows, read anew
        except Exception as error:
            self.on_error(error)

    def close(self):
        self.read()                      # inside the user's loop the model is still alive
        self.kept = []

"""Segments of the model that backward runs a second time (activation checkpointing,
``torch.utils.checkpoint``), and whether the gradients they give back belong to the loss
the forward pass computed (RECOMPUTED_FORWARD_DIFFERS, ``nndebug.rules.recomputed_segments``).

Checkpointing saves memory by keeping a segment's inputs only and re-running its forward
during backward to rebuild the activations. The gradients are right only when that second
run computes what the first one did. It does not when the recomputation draws new random
numbers (dropout under ``preserve_rng_state=False``, or a hand-written checkpoint helper
that never restores the generator: guided-diffusion#167), or when an operation's saved
state is not what its forward used (RReLU's noise under non-reentrant checkpointing,
pytorch#193671): the loss is computed with one network, its gradient with another, and
nothing fails.

How (torch only):

1. On the recorded steps the monitor's global module hooks are on (the first few), a
   registered module of the model called while autograd is running a backward pass
   (``torch._C._current_graph_task_id() >= 0``) and outside the model's forward is a
   recomputation: its name is noted (``offer``, called from those hooks; a module called
   outside the forward is rare, a dictionary look-up and one C call each). Nothing else is
   hooked; a model without checkpointing never gets past the first test.
2. At the first such call a private float64 copy of the model is taken, once (models up to
   ``MAX_PARAMETERS`` parameters): the weights this backward's gradient belongs to, before an
   optimizer step on a broken gradient can make them non-finite; that step's inputs come
   from ``first_training_inputs.py``.
3. When findings are asked for, the copy's gradient is checked against the function it
   belongs to (``read``): ``f = sum(output x v)`` with a fixed random ``v``, the random
   generator reseeded before every forward pass so that each draws the same dropout masks;
   ``g`` from the copy's own backward (checkpointing included), and the central difference
   of ``f`` along ``DIRECTIONS`` random directions of the recomputed modules' own
   parameters (below them the graph may be cut on purpose: a detached input). A right backward agrees to
   about 1e-6 in float64; a recomputation that differs from the forward does not. A
   forward that does not repeat itself under the same seed is not judged.

Kept in ``run.observed.recomputed_segments`` as ``[(step, [recomputed modules], checked,
relative error, gradient finite, why not checked)]``: one row per monitor, the first
recomputing step (a row is written when the copy is refused or checked).
"""
import warnings

import numpy as np

from .loss_reductions import output_tensors

MAX_PARAMETERS = 20_000_000   # [design] larger models are not copied (a float64 copy doubles
                              # their memory; the dependency probes stop at the same size)
DIRECTIONS = 3                # [design] random directions the gradient is checked along
STEP_SIZE = 1e-5              # [design] central-difference step, relative to each parameter
                              # tensor's rms (float64: truncation and rounding ~1e-10)
SEED = 8817                   # [design] the seed every forward pass of the check starts from
MODULES_KEPT = 8              # [design] recomputed module names kept
SAMPLES = 64                  # [design] samples of the kept batch the check runs on


def _in_backward():
    import torch
    current = getattr(torch._C, "_current_graph_task_id", None)
    return current is not None and current() >= 0


class RecomputedSegments:
    def __init__(self, adapter, observed, first_inputs, on_error):
        self.adapter, self.observed, self.first_inputs = adapter, observed, first_inputs
        self.on_error = on_error
        self.enabled = adapter.framework == "torch"
        self.names = {}            # id(module) -> its name, filled on the first offer
        self.seen = []             # recomputed module names on the step being recorded
        self.step = None
        self.copy = None           # the private float64 copy, once taken
        self.refused = False       # a copy was attempted
        self.why = None            # why there is no copy
        self.done = False          # the recomputing step ended

    def offer(self, module, step):
        """A registered module of the model called outside its forward (global hooks)."""
        if not self.enabled or self.done or not _in_backward():
            return
        if not self.names:
            self.names = {id(m): name for name, m in self.adapter.named_modules()}
        name = self.names.get(id(module))
        if name is not None and name not in self.seen and len(self.seen) < MODULES_KEPT:
            self.seen.append(name)
            self.step = step
        if self.copy is None and not self.refused:
            self._take_copy()      # now: the weights this backward's gradient belongs to

    def _take_copy(self):
        """A float64 copy of the model as it is during this backward (before the optimizer
        moves it: a step on a broken gradient can leave it non-finite). The user's hooks
        come with it (real-bug batch 158): a forward hook can be part of what the model
        computes - PEFT's ``enable_input_require_grads`` marks the embedding's output as
        requiring a gradient, without which reentrant checkpoints give the adapters inside
        them no gradient at all - and a copy without it checked zero gradients against real
        differences (RECOMPUTED_FORWARD_DIFFERS on a healthy LoRA run)."""
        self.refused = True        # one attempt
        try:
            if self.adapter.parameter_count(trainable_only=False) > MAX_PARAMETERS:
                self.why = "model too large to copy"
                return
            self.copy = self.adapter.private_copy(np.float64)
        except Exception as error:
            self.why = f"not copied ({type(error).__name__})"
            self.on_error(error)

    def after_step(self):
        """The recorded step ended: the recomputing step's modules are all noted."""
        if self.seen and not self.done:
            self.done = True
            if self.copy is None:
                self._keep(False, None, None, self.why)

    def _keep(self, checked, error, finite, why):
        self.observed.recomputed_segments.append(
            (int(self.step if self.step is not None else -1), list(self.seen), bool(checked),
             None if error is None else float(error), finite, why))

    def read(self):
        """At findings: check the copy's gradient along random directions (once)."""
        if self.copy is None or not self.done:
            return
        copy, self.copy = self.copy, None
        try:
            self._check(copy)
        except Exception as error:      # a model the check cannot run: say so, nothing more
            self._keep(False, None, None, f"not checked ({type(error).__name__})")

    def _check(self, copy):
        import torch
        kept = self.first_inputs.by_step("first argument")
        if not kept:
            self._keep(False, None, None, "no training inputs kept")
            return
        inputs = kept[self.step] if self.step in kept else next(iter(kept.values()))
        model = copy.model
        x = inputs[:SAMPLES].to(torch.float64)
        # only the recomputed modules' own parameters are moved: what lies below them may
        # be cut off on purpose (a detached input, a stop-gradient), so the function's change
        # there need not be the gradient's
        modules = dict(model.named_modules())
        params = list({id(p): p for name in self.seen if name in modules
                       for p in modules[name].parameters()
                       if p.requires_grad and p.is_floating_point()}.values())
        if not params:
            self._keep(False, None, None, "no trainable parameters in the recomputed modules")
            return
        generator = torch.Generator().manual_seed(SEED)     # CPU draws, moved to the device
        devices = sorted({p.device.index or 0 for p in params if p.device.type == "cuda"})
        # every generator a reseed touches is put back afterwards (the user's draws go on)
        with torch.random.fork_rng(devices=devices), warnings.catch_warnings():
            warnings.simplefilter("ignore")   # checkpoint's own, under no_grad
            def objective():
                torch.manual_seed(SEED)
                outputs = [t for t in output_tensors(model(x)) if t.is_floating_point()]
                if not cotangents:
                    cotangents.extend(torch.randn(t.shape, generator=generator,
                                                  dtype=t.dtype).to(t.device) for t in outputs)
                return sum((t * v).sum() for t, v in zip(outputs, cotangents))
            cotangents = []
            for p in params:
                p.grad = None
            value = objective()
            value.backward()
            grads = [torch.zeros_like(p) if p.grad is None else p.grad.detach().clone()
                     for p in params]
            with torch.no_grad():
                again, first = float(objective()), float(value)
                if not np.isfinite(first):
                    self._keep(False, None, None, "the function is not finite at the weights")
                    return
                if abs(again - first) > 1e-9 * max(abs(first), 1):
                    self._keep(False, None, None, "the forward does not repeat under one seed")
                    return
                finite = all(bool(torch.isfinite(g).all()) for g in grads)
                errors = []
                for _ in range(DIRECTIONS):
                    steps = [torch.randn(p.shape, generator=generator, dtype=p.dtype)
                             .to(p.device) * STEP_SIZE * max(float(p.pow(2).mean().sqrt()), 1e-3)
                             for p in params]
                    for p, s in zip(params, steps):
                        p.add_(s)
                    up = float(objective())
                    for p, s in zip(params, steps):
                        p.sub_(2 * s)
                    down = float(objective())
                    for p, s in zip(params, steps):
                        p.add_(s)
                    numeric = (up - down) / 2
                    analytic = float(sum((g * s).sum() for g, s in zip(grads, steps)))
                    if not np.isfinite(numeric):
                        continue
                    if not np.isfinite(analytic):
                        errors.append(float("inf"))
                        continue
                    scale = max(abs(numeric), abs(analytic), 1e-12)
                    errors.append(abs(analytic - numeric) / scale)
        if not errors:
            self._keep(False, None, finite, "the function is not finite around the weights")
            return
        self._keep(True, float(np.median(errors)), finite, None)

"""Addends of the loss that reach another network only, and whose gradient that network
drops (``run.observed.detached_terms``).

A GAN's generator step that judges ``fake.detach()`` (nikhilsinghmus/image2reverb#37):
``g_loss = bce(D(fake.detach()), ones) + l1(fake, real)``. The adversarial term's graph
reaches the discriminator's parameters and none of the generator's; the generator trains on
the L1 term alone, and every one of its parameters still gets a gradient, so nothing in its
statistics says so. The discriminator's parameters did get the term's gradient, but its
optimizer clears it (``opt_d.zero_grad()``) before it steps: the term trains nothing.

Separate networks summed in one loss are healthy too (an actor's and a critic's losses,
while the actor is watched): the critic's optimizer steps with that gradient. The verdict
is in what happens to the other network's gradient, so on the first ``STEPS_MEASURED``
recorded steps:

1. the loss's top-level sum is walked (``loss_reductions.top_level_addends``); each
   addend's graph is walked down to its parameters (``AccumulateGrad`` nodes) until one of
   the watched model's (or one its optimizer holds) is met. An addend that meets none, and
   meets parameters requiring a gradient, reaches another network only;
2. for those parameters (a few), the gradient tensor they hold now is compared with what
   torch's global optimizer step pre-hook saw: an optimizer that stepped them since this
   backward, holding this very gradient (same tensor, same version), used it ("stepped");
   otherwise the next optimizer step over them tells: the same gradient tensor still there
   means it was used ("stepped"), another one (cleared and recomputed) that it was dropped
   ("dropped"). No optimizer ever stepping them, or the gradient already cleared when
   ``step(loss)`` came: no verdict.

Each verdict lands as ``(step, operation of the addend, its parameter tensors, verdict)``.
Cost: per step of another optimizer than the watched one, until the measured steps are
judged, one pass over its parameter tensors (a weak reference and a version per tensor); a walk of each
addend's graph on the measured steps; nothing after.
"""
import weakref

from .loss_reductions import top_level_addends

STEPS_MEASURED = 6           # [design] recorded steps whose loss is walked (as
                             # loss_reductions.py): the loop's habit, not one step
WALK_LIMIT = 4096            # [design] graph nodes walked per addend: a discriminator of a
                             # few dozen layers is far under it; above it no verdict
FOREIGN_KEPT = 4             # [design] parameter tensors of the other network followed per
                             # addend: one network's tensors share one optimizer
PENDING_STEPS_MAX = 64       # [design] optimizer steps a followed gradient waits for a
                             # verdict before it is given up
STEP_CALLS_MAX = 1024        # [design] optimizer steps watched at most: a loop whose loss
                             # never reaches step() as a tensor stops paying for the hook


class DetachedTerms:
    def __init__(self, adapter, observed, parameters, optimizer, on_error):
        self.observed, self.optimizer, self.on_error = observed, optimizer, on_error
        self._watched = {id(p) for p in parameters}
        self._seen = {}              # id(parameter) -> (weak ref to its gradient, version)
                                     # when an optimizer last stepped it
        self._pending = []           # [(step, addend, tensors, [(parameter, weak gradient)])]
        self._waited = 0
        self._calls = 0              # optimizer steps seen
        self.measured = 0
        self._handle = None
        self.active = False
        if adapter.framework != "torch" or not self._watched:
            return
        try:
            from torch.optim.optimizer import register_optimizer_step_pre_hook
            self._handle = register_optimizer_step_pre_hook(self._before_step)
            self.active = True
        except Exception as error:     # a torch without global optimizer hooks
            on_error(error)

    # --- every optimizer step, while measuring -----------------------------------------------
    def _before_step(self, optimizer, args, kwargs):
        self._calls += 1
        if not self.active or self._calls > STEP_CALLS_MAX:
            self._stop()
            return
        if optimizer is self.optimizer:
            return                     # it holds no other network's tensors (on_loss skips
                                       # those it holds): a one-network loop pays a call only
        try:
            parameters = [p for group in optimizer.param_groups for p in group["params"]]
            if self._pending:
                self._judge_pending({id(p) for p in parameters})
            for p in parameters:
                grad = p.grad
                self._seen[id(p)] = (None, None) if grad is None else \
                    (weakref.ref(grad), grad._version)
        except Exception as error:     # never break the user's step
            self._stop()
            self.on_error(error)

    def _judge_pending(self, stepped):
        self._waited += 1
        still = []
        for step, addend, tensors, followed in self._pending:
            hit = [(p, ref) for p, ref in followed if id(p) in stepped]
            if hit:
                used = any(ref() is not None and ref() is p.grad for p, ref in hit)
                self._note(step, addend, tensors, "stepped" if used else "dropped")
            elif self._waited < PENDING_STEPS_MAX:
                still.append((step, addend, tensors, followed))
        self._pending = still
        self._close_when_done()

    # --- a measured step's loss ------------------------------------------------------------
    def on_loss(self, step, loss):
        if not self.active:
            self.close()               # the hook goes here, outside torch's loop over hooks
            return
        if step is None or getattr(loss, "grad_fn", None) is None:
            return
        self.measured += 1
        try:
            held = None
            for node, _ in top_level_addends(loss.grad_fn):
                foreign = _foreign_parameters(node, self._watched)
                if not foreign:
                    continue
                held = self._held() if held is None else held
                if any(id(p) in held for p in foreign):
                    continue                 # the watched optimizer steps them: trained
                self._follow(int(step), type(node).__name__, foreign)
        except Exception as error:           # a graph we cannot read costs this step
            self.on_error(error)
        self._close_when_done()

    def _follow(self, step, addend, foreign):
        kept = foreign[:FOREIGN_KEPT]
        for p in kept:
            ref, version = self._seen.get(id(p), (None, None))
            if p.grad is not None and ref is not None and ref() is p.grad and \
                    p.grad._version == version:
                self._note(step, addend, len(foreign), "stepped")   # stepped since backward
                return
        followed = [(p, weakref.ref(p.grad)) for p in kept if p.grad is not None]
        if followed:
            self._waited = 0
            self._pending.append((step, addend, len(foreign), followed))

    def _held(self):
        """ids of the tensors the watched optimizer holds (empty without one)."""
        groups = getattr(self.optimizer, "param_groups", None) or []
        return {id(p) for group in groups for p in group.get("params", ())}

    def _note(self, step, addend, tensors, verdict):
        self.observed.detached_terms.append((int(step), str(addend), int(tensors), verdict))

    def _close_when_done(self):
        if self.measured >= STEPS_MEASURED and not self._pending:
            self._stop()

    def _stop(self):
        """Measuring ends. The hook itself is removed later (``close``, or the next
        ``on_loss``): removing it while torch loops over its step hooks breaks that loop."""
        self.active = False
        self._seen, self._pending = {}, []

    def close(self):
        self.active = False
        if self._handle is not None:
            self._handle.remove()
            self._handle = None
        self._seen, self._pending = {}, []


def _foreign_parameters(root, watched):
    """The parameters requiring a gradient that the graph under ``root`` reaches, when none
    of them is watched and the walk ended within WALK_LIMIT nodes; [] otherwise."""
    seen, stack, foreign = {root}, [root], []
    while stack:
        if len(seen) > WALK_LIMIT:
            return []
        node = stack.pop()
        variable = getattr(node, "variable", None)
        if variable is not None:
            if id(variable) in watched:
                return []
            foreign.append(variable)
            continue
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                stack.append(child)
    return foreign

"""A validation forward handed the sequence it forecasts (VALIDATION_TEACHER_FORCED,
``nndebug.rules.teacher_forced_validation``).

A sequence-to-sequence forecaster is trained with teacher forcing: its decoder reads the
true previous value at each future step. Validated the same way - the ground-truth future
passed to the forward again - the validation loss measures one-step-ahead prediction with
the true past given at every step, not the multi-step forecast the model must make alone,
and it flatters the model many times over.

What it reads (torch only): once a step has passed ``val_loss``, a forward pre-hook on the
model holds the arguments of the no-gradient forwards of the next validation pass (at most
MAX_HELD). When that step passes ``val_loss``, the first held forward with a float tensor
argument besides its first (a sequence: rows, at least MIN_STEPS positions) is probed
once, on a private float64 copy of the model in eval mode (``adapter.private_copy``):
called as the user called it, then with that argument changed at one position of its
second axis. A teacher-forced input shows itself this way: the output has the argument's
shape, reads it causally (outputs before the changed position stay exactly the same,
outputs after it move) and reproduces, at each step, a position of it that step has not
read: the same position when the decoder reads the truth one step late (the change leaves
the output at its own position unmoved), or the next one when the argument is the
targets shifted right (``[start, y[:-1]]``). A future known in advance (a calendar or a
weather forecast of the forecast steps) is read causally too, but the output matches it
best where it reads it, at the same step; a ``teacher_forcing_ratio=0`` call that passes
the targets and reads only their first step leaves the later outputs unmoved.

The model is copied only when a held forward has such an argument of its output's own
shape (a forward hook notes the output's shape). Kept in
``run.observed.validation_teacher_inputs``: ``[(step, argument, shape, error at
the same positions, error one step on, earlier outputs unchanged, the output at the changed
position moved, later outputs moved)]`` (errors: mean squared difference over the
argument's variance). Cost: a grad-mode
check per forward (two hooks) from the first validation to the probed one; one copy of
the model and two forwards of PROBE_ROWS validation rows, once.
"""
import numpy as np

MAX_HELD = 4            # [design] no-gradient forwards of a pass held (the first is probed)
MIN_STEPS = 3           # [design] positions along the argument's second axis: a sequence
PROBE_ROWS = 64         # [design] rows of the validation batch the probe runs on
UNCHANGED = 1e-9        # [design] relative change of an output position read as none (the
                        # float64 copy's rounding is ~1e-15)


def _row_count(value):
    shape = getattr(value, "shape", ())
    return int(shape[0]) if len(shape) else None


class TeacherForcedValidation:
    def __init__(self, adapter, observed, root, current_step, on_error):
        self.adapter, self.observed, self.root = adapter, observed, root
        self._current_step, self._on_error = current_step, on_error
        self._handle, self._after, self._held, self._done = None, None, [], False
        self._torch = None
        if adapter.framework == "torch" and root is not None:
            import torch
            self._torch = torch

    # --- holding the validation pass's arguments -------------------------------------
    def take(self, step):
        """``mon.step(loss, val_loss=...)`` closes ``step``: probe what its validation
        forwards received (once), and hold the next pass's arguments until then."""
        if self._done or self._torch is None:
            return
        try:
            held = [(args, kwargs, shape) for at, args, kwargs, shape in self._held
                    if at == step and shape is not None]
            self._held = []
            if held:
                self._done = True
                self.close()
                self._probe(step, held)
            elif self._handle is None:
                self._handle = self.adapter.add_forward_pre_hook(self.root, self._before_forward,
                                                                 with_kwargs=True)
                self._after = self.adapter.add_forward_hook(self.root, self._after_forward)
        except Exception as error:        # never break the user's step
            self._on_error(error)
            self._done = True
            self.close()

    def _before_forward(self, module, args, kwargs):
        if self._torch.is_grad_enabled():
            self._held = []               # a training forward: what came before was not
            return                        # a validation pass
        try:
            step = self._current_step()
            if self._held and self._held[0][0] != step:
                self._held = []
            if len(self._held) < MAX_HELD:
                self._held.append([step, tuple(args), dict(kwargs), None])
        except Exception as error:        # never break the user's forward pass
            self._on_error(error)

    def _after_forward(self, module, inputs, output):
        """The output's shape, on the forward held last (only its shape: the probe runs
        when one of the forward's arguments has that shape)."""
        if self._held and self._held[-1][3] is None and not self._torch.is_grad_enabled():
            try:
                leaves = self.adapter.float_leaves(
                    output if isinstance(output, (tuple, list)) else (output,))
                self._held[-1][3] = tuple(leaves[0].shape) if leaves else ()
            except Exception as error:    # never break the user's forward pass
                self._on_error(error)

    # --- the probe ------------------------------------------------------------------------
    def _candidates(self, args, kwargs, output_shape):
        """[(place, tensor)]: float tensors other than the first argument, of the output's
        shape, holding one row per sample of the first argument and a sequence of MIN_STEPS
        positions or more."""
        torch = self._torch
        if not args or not isinstance(args[0], torch.Tensor):
            return []
        rows = _row_count(args[0])
        places = [(f"argument {i}", a) for i, a in enumerate(args) if i > 0] + \
            [(f"keyword {k}", v) for k, v in kwargs.items()]
        return [(place, value) for place, value in places
                if isinstance(value, torch.Tensor) and value.is_floating_point()
                and value.dim() >= 2 and _row_count(value) == rows
                and value.shape[1] >= MIN_STEPS and tuple(value.shape) == output_shape]

    def _probe(self, step, held):
        for args, kwargs, shape in held:
            candidates = self._candidates(args, kwargs, shape)
            if candidates:
                break
        else:
            return
        work = self.adapter.private_copy(np.float64, hooks=False)
        work.model.eval()
        torch = self._torch
        rows = min(PROBE_ROWS, _row_count(args[0]))

        def cast(value):
            if isinstance(value, torch.Tensor):
                value = value.detach()[:rows] if _row_count(value) == _row_count(args[0]) \
                    else value.detach()
                return value.double() if value.is_floating_point() else value
            return value

        base_args = [cast(a) for a in args]
        base_kwargs = {k: cast(v) for k, v in kwargs.items()}

        def run(call_args, call_kwargs):
            with torch.no_grad(), torch.random.fork_rng(devices=[]):
                torch.manual_seed(0)
                out = work.model(*call_args, **call_kwargs)
            leaves = self.adapter.float_leaves(out if isinstance(out, (tuple, list)) else (out,))
            return leaves[0] if leaves else None

        base = run(base_args, base_kwargs)
        if base is None:
            return
        for place, _ in candidates:
            teacher = _value_at(place, base_args, base_kwargs)
            if tuple(base.shape) != tuple(teacher.shape):
                continue
            same, following = _reproduction(base, teacher)
            position = teacher.shape[1] // 2
            moved = run(*_changed_at(place, base_args, base_kwargs, teacher, position))
            if moved is None or moved.shape != base.shape:
                continue
            # (N, T) forecasts as (N, T, 1): a univariate forecast has no feature axis
            change = (moved - base).abs().reshape(*base.shape[:2], -1).amax(dim=(0, 2)) / \
                max(float(base.abs().max()), 1e-12)
            earlier = bool((change[:position] <= UNCHANGED).all())
            own = bool(change[position] > UNCHANGED)
            later = bool((change[position + 1:] > UNCHANGED).any())
            self.observed.validation_teacher_inputs.append(
                (int(step), place, [int(n) for n in teacher.shape], round(same, 6),
                 round(following, 6), earlier, own, later))
            return

    def close(self):
        self._held = []
        for handle in (self._handle, self._after):
            if handle is not None:
                handle.remove()
        self._handle = self._after = None


def _value_at(place, args, kwargs):
    """The argument at ``place`` ("argument 1", "keyword teacher") of a call."""
    kind, name = place.split(" ", 1)
    return args[int(name)] if kind == "argument" else kwargs[name]


def _changed_at(place, args, kwargs, teacher, position):
    """(args, kwargs) with the argument at ``place`` changed at one position of its second
    axis by its own standard deviation (plus one, for a constant one)."""
    changed = teacher.clone()
    changed[:, position] += float(teacher.std()) + 1.0
    kind, name = place.split(" ", 1)
    args, kwargs = list(args), dict(kwargs)
    if kind == "argument":
        args[int(name)] = changed
    else:
        kwargs[name] = changed
    return args, kwargs


def _reproduction(output, teacher):
    """(same, following): how closely the output reproduces the teacher at the same
    positions (output[:, s] against teacher[:, s]) and one step on (against teacher[:, s +
    1]), each as the mean squared difference over the teacher's variance."""
    spread = float(teacher.var()) or 1.0
    same = float(((output - teacher) ** 2).mean()) / spread
    following = float(((output[:, :-1] - teacher[:, 1:]) ** 2).mean()) / spread
    return same, following

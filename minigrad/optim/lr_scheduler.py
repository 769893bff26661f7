"""Learning-rate schedules, with torch.optim.lr_scheduler's names and formulas.

A scheduler rewrites ``group["lr"]`` of its optimizer each time ``step()`` is
called (once per epoch, after ``optimizer.step()``). Creating one performs step
0, which records each group's starting rate as ``initial_lr``.

Like torch, most schedulers update the rate *recursively* from its current value
(``get_lr``), so a rate changed by hand carries on from there; ``step(epoch)``
uses the closed form instead.
"""
import math
import numbers
import types

from .optimizer import Optimizer


class LRScheduler:
    def __init__(self, optimizer, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not a minigrad Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] "
                                   "when resuming a scheduler with last_epoch >= 0; load the "
                                   "optimizer's state dict first")
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._step_count = 0
        self._is_initial = True
        self.step()
        self._is_initial = False

    def get_lr(self):
        """The rates for the current ``last_epoch`` (recursive form); subclasses define it."""
        raise NotImplementedError

    def get_last_lr(self):
        """The rates the last ``step()`` set, one per param group."""
        return list(self._last_lr)

    def step(self, epoch=None):
        self._step_count += 1
        if epoch is None:
            self.last_epoch += 1
            values = self.get_lr()
        else:
            self.last_epoch = epoch
            closed = getattr(self, "_get_closed_form_lr", None)
            values = closed() if closed is not None else self.get_lr()
        values = list(values)
        _check_rates(type(self).__name__, values)
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def _current(self):
        return [group["lr"] for group in self.optimizer.param_groups]

    def state_dict(self):
        """Everything but the optimizer (save and load that one separately)."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)


_LRScheduler = LRScheduler


def _check_rates(scheduler, values):
    """Refuse a rate that is not a finite number >= 0 (a lambda returning NaN or a string)
    before it reaches the optimizer, which would otherwise train on it silently."""
    for lr in values:
        if isinstance(lr, bool) or not isinstance(lr, numbers.Real) or not lr >= 0 \
                or not math.isfinite(lr):
            raise ValueError(f"{scheduler} computed the learning rate {lr!r}; a rate must be a "
                             "finite number >= 0 - check the schedule's arguments (or what "
                             "lr_lambda returns)")


def _positive_int(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive int (a number of epochs), got {value!r}")
    return int(value)


class LambdaLR(LRScheduler):
    """lr = initial_lr * lr_lambda(epoch), one lambda per group or one for all."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        for fn in (lr_lambda if isinstance(lr_lambda, (list, tuple)) else [lr_lambda]):
            if not callable(fn):
                raise TypeError(f"LambdaLR: lr_lambda must be a function of the epoch (or a "
                                f"list of them, one per param group), got {type(fn).__name__}")
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got "
                                 f"{len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [base_lr * self._factor(fn) for fn, base_lr in zip(self.lr_lambdas, self.base_lrs)]

    def _factor(self, fn):
        factor = fn(self.last_epoch)
        if isinstance(factor, bool) or not isinstance(factor, numbers.Real):
            raise ValueError(f"LambdaLR: lr_lambda({self.last_epoch}) returned "
                             f"{type(factor).__name__} {factor!r}; it must return a number, the "
                             "factor the initial rate is multiplied by")
        return factor

    def state_dict(self):
        # plain functions and lambdas cannot be saved; callable objects save their __dict__
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
                               for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        lambdas = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        for fn, saved in zip(self.lr_lambdas, lambdas):
            if saved is not None:
                fn.__dict__.update(saved)


class StepLR(LRScheduler):
    """Multiply the rate by ``gamma`` every ``step_size`` epochs."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size, self.gamma = _positive_int(step_size, "StepLR: step_size"), gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._current()
        return [lr * self.gamma for lr in self._current()]

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size)
                for base_lr in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the rate by ``gamma`` at each epoch listed in ``milestones``."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = sorted(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        hits = self.milestones.count(self.last_epoch)
        if hits == 0:
            return self._current()
        return [lr * self.gamma ** hits for lr in self._current()]

    def _get_closed_form_lr(self):
        passed = sum(1 for m in self.milestones if m <= self.last_epoch)
        return [base_lr * self.gamma ** passed for base_lr in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply the rate by ``gamma`` every epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self._is_initial:
            return self._current()
        return [lr * self.gamma for lr in self._current()]

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** self.last_epoch for base_lr in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Follow half a cosine from the initial rate down to ``eta_min`` over ``T_max`` epochs:

        lr(t) = eta_min + (initial_lr - eta_min) * (1 + cos(pi * t / T_max)) / 2

    computed recursively from the previous rate, as torch does (past T_max it rises
    again, the "SGDR without restarts" shape).
    """

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        if isinstance(T_max, bool) or not isinstance(T_max, numbers.Real) or not T_max > 0:
            raise ValueError(f"CosineAnnealingLR: T_max must be a positive number of epochs, "
                             f"got {T_max!r}")
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        t, T, low = self.last_epoch, self.T_max, self.eta_min
        if self._is_initial:
            return self._current()
        if self._step_count == 1 and t > 0:
            return [low + (base_lr - low) * (1 + math.cos(t * math.pi / T)) / 2
                    for base_lr in self.base_lrs]
        if (t - 1 - T) % (2 * T) == 0:
            return [lr + (base_lr - low) * (1 - math.cos(math.pi / T)) / 2
                    for base_lr, lr in zip(self.base_lrs, self._current())]
        return [(1 + math.cos(math.pi * t / T)) / (1 + math.cos(math.pi * (t - 1) / T))
                * (lr - low) + low for lr in self._current()]

    def _get_closed_form_lr(self):
        return [self.eta_min + (base_lr - self.eta_min)
                * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base_lr in self.base_lrs]

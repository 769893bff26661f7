"""The model's forwards without gradients after the last training step, and the layer modes
they ran in (VALIDATION_IN_TRAIN_MODE, MC_DROPOUT_SAMPLED_IN_EVAL_MODE:
``nndebug.rules.after_training``).

Many loops end with work on the trained model inside the ``with nd.watch(...)`` block:
logits collected to fit a temperature, Monte Carlo dropout passes, images rendered one by
one. None of it is a training step and none of it passes ``val_loss``, so the per-step
records and the validation observer (``validation_inputs.py``) never see it. Its bugs are
about the mode the model is in:
- still in training mode from the loop (no ``model.eval()``): batch norm normalises each
  evaluation batch by its own statistics and folds it into the running averages; a batch of
  one image is normalised against itself (real-bug batches 105 and 114);
- in eval mode for Monte Carlo dropout: every dropout layer is off, the "stochastic" passes
  over one input are identical and the uncertainty is zero (real-bug batch 114).

A forward pre-hook on the model, on for the whole run, returns at once for a forward with
gradients (a training forward: about a microsecond, measured on a 64-64-10 MLP). For one
without, it notes the step it belongs to (the monitor's step counter: after the last
``mon.step`` it is the number of steps), whether a batch-norm and a dropout layer were in
training mode, whether a batch-norm layer kept a cumulative average (``momentum=None``:
``torch.optim.swa_utils.update_bn`` recomputing the statistics on purpose), and whether the
first input is the very tensor the previous forward had, unchanged (same storage, offset,
shape, strides and in-place version; the previous one is held until the next forward, so
its memory cannot be handed to another tensor meanwhile). Only the counts of the latest step
are kept, and what the rules ask of the earlier ones; at close (if any forward ran without
gradients) they become one row of ``run.observed.forwards_after_training``, the counts
after the last ``mon.step`` zero when none came after it:

    (step, forwards, with batch norm training, with dropout training, an eval-mode forward
     after the last train-mode one, longest run of one input with every dropout layer off
     (0 without dropout layers), a batch norm with a cumulative average, earlier steps with
     no-gradient forwards in training mode, longest such run of one input at earlier steps,
     longest run of one input with a dropout layer on, earlier steps with no-gradient
     forwards with a dropout layer on)

The earlier-step counts say what the loop did between its steps: a GAN that samples its
generator in training mode every few hundred steps does the same after the last one. The
last two (real-bug batch 263) tell predictions made with dropout still on (a model asked
for its outputs after the loop without ``model.eval()``) from Monte Carlo dropout done
right (one input passed many times with dropout on) and from a loop's habit.
"""
from .validation_inputs import mode_layers


class ForwardsAfterTraining:
    def __init__(self, adapter, observed, root, current_step, on_error):
        self.adapter, self.observed = adapter, observed
        self._current_step, self._on_error = current_step, on_error
        self._handle = None
        self._layers = None               # [(is batch norm, module)], found at first use
        self._step = None                 # the step the counts below belong to
        self._earlier_train_mode_steps = 0
        self._earlier_longest_repeat = 0
        self._earlier_dropout_steps = 0
        self._reset()
        if adapter.framework == "torch" and root is not None:
            import torch
            self._grad_enabled = torch.is_grad_enabled
            try:
                self._handle = adapter.add_forward_pre_hook(root, self._before_forward)
            except Exception as error:    # never break the user's run
                on_error(error)

    def _reset(self):
        self._forwards = self._norm_training = self._dropout_training = 0
        self._eval_after_train = self._cumulative = False
        self._repeat = self._longest_repeat = 0
        self._dropout_repeat = self._longest_dropout_repeat = 0
        self._previous = self._previous_version = None

    def _before_forward(self, module, inputs):
        if self._grad_enabled():          # a training forward: the records' business
            if self._previous is not None:
                self._previous = None     # let the last evaluation's input go
            return
        try:
            step = self._current_step()
            if step != self._step:
                self._fold_into_earlier()
                self._step = step
            self._count(inputs)
        except Exception as error:        # never break the user's forward pass
            self._on_error(error)

    def _fold_into_earlier(self):
        """The counts kept belong to a step that is over: keep what the rule asks of earlier
        steps, start counting anew."""
        if self._norm_training:
            self._earlier_train_mode_steps += 1
        if self._dropout_training:
            self._earlier_dropout_steps += 1
        self._earlier_longest_repeat = max(self._earlier_longest_repeat, self._longest_repeat)
        self._reset()

    def _count(self, inputs):
        norm, dropout, cumulative, has_dropout = self._modes()
        self._forwards += 1
        self._norm_training += norm
        self._dropout_training += dropout
        self._cumulative |= cumulative
        if not norm and self._norm_training:
            self._eval_after_train = True
        elif norm:
            self._eval_after_train = False
        x = inputs[0] if inputs and self.adapter.is_tensor(inputs[0]) else None
        same = x is not None and has_dropout and self._same_as_previous(x)   # both counts below
        if x is not None and has_dropout and not dropout and same:
            self._repeat += 1
        else:
            self._repeat = 1 if x is not None and has_dropout and not dropout else 0
        self._longest_repeat = max(self._longest_repeat, self._repeat)
        if x is not None and dropout:      # the same with dropout on (batch 263)
            self._dropout_repeat = self._dropout_repeat + 1 if same else 1
        else:
            self._dropout_repeat = 0
        self._longest_dropout_repeat = max(self._longest_dropout_repeat, self._dropout_repeat)
        self._previous, self._previous_version = x, None if x is None else x._version

    def _same_as_previous(self, x):
        previous = self._previous
        return previous is not None and x._version == self._previous_version and \
            x.data_ptr() == previous.data_ptr() and x.shape == previous.shape and \
            x.stride() == previous.stride() and x.dtype == previous.dtype

    def _modes(self):
        """(a batch norm in training mode, a dropout layer in training mode, a batch norm in
        training mode keeping a cumulative average, the model has dropout layers)."""
        if self._layers is None:
            self._layers = mode_layers(self.adapter)
        norm = dropout = cumulative = has_dropout = False
        for is_norm, m in self._layers:
            training = self.adapter.is_training(m)
            if is_norm:
                norm |= training
                cumulative |= training and getattr(m, "momentum", 0.1) is None
            else:
                has_dropout = True
                dropout |= training
        return norm, dropout, cumulative, has_dropout

    def close(self):
        """Called when the monitor closes: the counts become the row (none when no forward
        ran without gradients; the counts after the last step zero when none came after it)."""
        if self._handle is not None:
            self._handle.remove()
            self._handle = None
        try:
            if self._step is None:        # no forward without gradients at all
                return
            step = self._current_step()
            if self._step != step:        # the last ones came before the last step
                self._fold_into_earlier()
            self.observed.forwards_after_training.append((
                int(step), self._forwards, self._norm_training, self._dropout_training,
                self._eval_after_train, self._longest_repeat, self._cumulative,
                self._earlier_train_mode_steps, self._earlier_longest_repeat,
                self._longest_dropout_repeat, self._earlier_dropout_steps))
        except Exception as error:
            self._on_error(error)
        finally:
            self._previous = None

"""How the model is evaluated, from its evaluation forwards (no gradient) seen by
``monitor/validation_inputs.py`` once the run passes validation losses.

VALIDATION_INPUTS_RESCALED: the model is evaluated on inputs of another scale than the
ones it trains on.

The training pipeline scales its inputs (a standard scaler fitted on the training
features, a Normalize transform); a validation pipeline that skips that step feeds the
model raw numbers it never saw, and the validation loss then reads like overfitting or like
nothing learned while the model is fine. Public reports: "Missing scaling of validation
samples in evaluate.py", https://github.com/nttcslab/byol-a/issues/5 ("It also needs: X_val
= scaler.transform(X_val), or validation acc & loss will be invalid"); "Why is the training
accuracy okay, but the testing accuracy is very low?",
https://github.com/JeasunLok/ResNet-pytorch/issues/1 ("the normalization has been used in
training set but not used in testing set").

Read from the training batches' input statistics (``StepRecord.inputs``: mean and std of
the first floating-point input) and the evaluation forwards' (``run.observed.
validation_inputs``, ``monitor/validation_inputs.py``; in a loop that passes no
``val_loss``, the forwards without gradients it ran in eval mode between its steps,
``unannounced_evaluations``: real-bug batch 242, a test Dataset built without the
training transform). Held-out data drawn like the
training data differs from it by sampling noise; augmentation widens the training inputs a
little; what is flagged is a spread several times wider or narrower, or a mean moved by
several training standard deviations. A validation set cut from the end of a drifting
series moves too (core variants 7: 1.5 training stds lower, 0.56x the spread) while both
sides stay centred data; a skipped step mostly leaves raw non-negative inputs on one side
and centred ones on the other (the shares of negative entries: ``monitor/
validation_inputs.py``, ``monitor/training_input_signs.py``), or moves them by their raw
scale. So with both sides of one kind the change must be larger.

VALIDATION_IN_TRAIN_MODE: the evaluation forwards ran with the model's batch-norm layers in
training mode (no ``model.eval()``): each validation batch is normalised with its own
statistics and folded into the running averages, so the validation data leaks into the
model that is kept. Public report: "`model.train()` usage",
https://github.com/princeton-vl/pytorch_stacked_hourglass/issues/44. Dropout alone in
training mode only makes the validation loss noisier and higher: info. (A recipe that
refreshes batch-norm statistics with no-gradient forwards over training batches, as
schedule-free optimizers suggest, looks the same when it runs between validations.)

The same after the last step (``monitor/forwards_after_training.py``, ``run.observed.
forwards_after_training``): logits collected to fit a temperature, or images rendered one
by one, with the model still in training mode from the loop. Each batch is normalised by
its own statistics (a batch of one image against itself) and folded into the running
averages, so what is computed is not what the trained model would give. Public reports: "my
simple correction for reproducing good performance"
(https://github.com/gpleiss/temperature_scaling/issues/20, real-bug batch 114: validation
logits for the temperature collected in training mode) and "remove the noise from the
generated image" (https://github.com/yusuketomoto/chainer-fast-neuralstyle/issues/68, batch
105: a style generator rendering single images in training mode). Left alone, because they
are meant: statistics recomputed on purpose (a batch norm keeping a cumulative average, ``momentum=None``,
as ``torch.optim.swa_utils.update_bn`` sets; or training-mode forwards followed by an
evaluation in eval mode: a refresh, AdaBN), and a loop that ran such forwards between its
steps too (a GAN sampling its generator in training mode every few hundred steps: its habit,
not a slip after the loop).
"""
import numpy as np

from ..findings import Finding
from .context import MC_MIN_PASSES, observed_list
from .graph import rule

SCALE_RATIO = 1.75           # [design] evaluation std over training std (or its inverse):
                             # standardised features against raw ones differ by the raw
                             # std (6 for pixel counts 0-16), ImageNet-normalised images
                             # against [0, 1] ones by about 4, Normalize((0.5,), (0.5,))
                             # against [0, 1] by 2; a held-out sample of the same pipeline
                             # stays within a few percent, augmentation within about 1.3
SHIFT_STDS = 1.0             # [design] evaluation mean this many training stds from the
                             # training mean (held-out samples: a small fraction of one)
MIN_EVALUATIONS = 2          # [design] evaluation forwards measured
MIN_TRAIN_MODE_FORWARDS = 2  # [design] as MIN_EVALUATIONS, for the forwards after the last
                             # step: one may be a stray one (a final prediction for a print)
MIN_DROPOUT_PREDICTIONS = 1  # [design] no-gradient forwards with dropout on after the last step:
                             # one is enough (a grid or a test set predicted in one batch, the
                             # report's case); unlike batch norm's, a dropout pass changes
                             # nothing in the model, so a stray forward costs nothing to
                             # name - its output is noisy whatever it was for
MIN_TRAINING_RECORDS = 3     # [design] training batches with input statistics
MIN_STD = 1e-8               # [design] a training std below this is a constant input
                             # (CONSTANT_INPUTS), not a scale to compare with
RAW_NEGATIVE_SHARE = 0.01    # [design] a side with at most 1% negative entries is raw
                             # non-negative data (pixels, counts, prices)
CENTRED_NEGATIVE_SHARE = 0.2  # [design] a side with 20%+ negative entries is centred data
                             # (standardised: ~50%; Normalize((0.5,), (0.5,)) of digits: ~80%)
SAME_KIND_SCALE_RATIO = 3.0  # [design] both sides the same kind of data (both centred or both
                             # raw): the spread must differ this many times, or
SAME_KIND_SHIFT_STDS = 3.0   # [design] the mean move this many training stds. A time split
                             # of a drifting standardised series (core variants 7: 1.5 stds
                             # lower, 0.56x the spread) stays under both; raw features
                             # against standardised ones differ by their raw scale (6 for
                             # pixel counts 0-16, 255 for bytes against [0, 1])


def _medians(pairs):
    values = np.asarray(pairs, dtype=float).reshape(-1, 2)
    values = values[np.all(np.isfinite(values), axis=1)]
    return (None, None) if not len(values) else tuple(np.median(values, axis=0))


def one_side_raw(train_negative, eval_negative):
    """Whether one side is raw non-negative data and the other centred, from the shares of
    negative entries: what a skipped scaling step leaves (pixels in [0, 1] against the
    [-1, 1] of a Normalize, counts against standardised features)."""
    low, high = sorted((train_negative, eval_negative))
    return low <= RAW_NEGATIVE_SHARE and high >= CENTRED_NEGATIVE_SHARE


def rescaled(train, evaluations, negative_shares=None):
    """``(train_mean, train_std, eval_mean, eval_std)`` when the evaluation inputs' spread
    differs SCALE_RATIO times from the training inputs' or their mean moved SHIFT_STDS
    training stds; else None. ``train``, ``evaluations``: [(mean, std)].
    ``negative_shares``: (training, evaluation) shares of negative entries, when measured:
    if both sides are the same kind of data (neither ``one_side_raw``), the spread must
    differ SAME_KIND_SCALE_RATIO times or the mean move SAME_KIND_SHIFT_STDS stds (a
    validation set cut from the end of a drifting series moves a little, a skipped step
    a lot)."""
    if len(train) < MIN_TRAINING_RECORDS or len(evaluations) < MIN_EVALUATIONS:
        return None
    train_mean, train_std = _medians(train)
    eval_mean, eval_std = _medians(evaluations)
    if train_std is None or eval_std is None or train_std < MIN_STD:
        return None
    ratio = eval_std / train_std
    wider = ratio >= SCALE_RATIO or ratio <= 1 / SCALE_RATIO
    moved = abs(eval_mean - train_mean) >= SHIFT_STDS * train_std
    if not (wider or moved):
        return None
    if negative_shares is not None and not one_side_raw(*negative_shares):
        far = ratio >= SAME_KIND_SCALE_RATIO or ratio <= 1 / SAME_KIND_SCALE_RATIO or \
            abs(eval_mean - train_mean) >= SAME_KIND_SHIFT_STDS * train_std
        if not far:
            return None
    return float(train_mean), float(train_std), float(eval_mean), float(eval_std)


def _negative_shares(ctx, seen):
    """(training, evaluation) median shares of negative entries, or None when either side
    was not measured (minigrad, token ids, a run saved before the shares were kept)."""
    train = [row[1] for row in observed_list(ctx, "training_input_signs")]
    evaluation = [row[5] for row in seen if len(row) >= 6]
    train = [v for v in train if np.isfinite(v)]
    evaluation = [v for v in evaluation if np.isfinite(v)]
    if not train or not evaluation:
        return None
    return float(np.median(train)), float(np.median(evaluation))


@rule(produces="VALIDATION_INPUTS_RESCALED", explains={"OVERFITTING"})
def validation_inputs_rescaled(ctx):
    train = [(r.inputs["mean"], r.inputs["std"]) for r in ctx.run.records
             if r.inputs and "mean" in r.inputs and "std" in r.inputs]
    seen = observed_list(ctx, "validation_inputs") or \
        observed_list(ctx, "unannounced_evaluations")   # eval-mode forwards, no val_loss
    shares = _negative_shares(ctx, seen)
    found = rescaled(train, [(seen_at[1], seen_at[2]) for seen_at in seen], shares)
    if found is None:
        return None
    train_mean, train_std, eval_mean, eval_std = found
    return Finding(
        code="VALIDATION_INPUTS_RESCALED", severity="warning", step=int(seen[0][0]),
        message=f"The model is evaluated on inputs of another scale than it trains on "
                f"(evaluation mean {eval_mean:.3g}, std {eval_std:.3g}; training mean "
                f"{train_mean:.3g}, std {train_std:.3g}): the validation data skips a step "
                "of the training pipeline, and its loss measures the model on inputs it "
                "never saw.",
        evidence={"train_mean": train_mean, "train_std": train_std,
                  "eval_mean": eval_mean, "eval_std": eval_std, "evaluations": len(seen),
                  "negative_shares": shares},
        fix="Apply to the validation inputs exactly the preprocessing the training inputs "
            "get, fitted on the training data: the same scaler's transform(), the same "
            "Normalize(mean, std) in the evaluation transforms.")


def in_train_mode(evaluations):
    """(batch-norm layers in training mode, dropout layers in training mode): whether most
    of the evaluation forwards ran so (at least MIN_EVALUATIONS of them). ``evaluations``:
    [(step, mean, std, norm_training, dropout_training)]."""
    evaluations = [e for e in evaluations if len(e) >= 5]
    if len(evaluations) < MIN_EVALUATIONS:
        return False, False
    norm = sum(bool(e[3]) for e in evaluations)
    dropout = sum(bool(e[4]) for e in evaluations)
    return 2 * norm > len(evaluations), 2 * dropout > len(evaluations)


@rule(produces="VALIDATION_IN_TRAIN_MODE")
def validation_in_train_mode(ctx):
    seen = observed_list(ctx, "validation_inputs")
    norm, dropout = in_train_mode(seen)
    if not (norm or dropout):
        return _evaluated_after_training_in_train_mode(ctx) or \
            _predicted_after_training_with_dropout_on(ctx)
    layers = "batch-norm" + (" and dropout" if dropout else "") if norm else "dropout"
    consequence = ("each validation batch is normalised with its own statistics and folded "
                   "into the running averages: the validation data leaks into the model "
                   "that is kept, and the validation loss flatters it" if norm else
                   "dropout keeps dropping units while the model is scored: the validation "
                   "loss is noisier and higher than the model's")
    return Finding(
        code="VALIDATION_IN_TRAIN_MODE", severity="warning" if norm else "info",
        step=int(seen[0][0]),
        message=f"The model was evaluated (forwards without gradients) with its {layers} "
                f"layers in training mode: {consequence}.",
        evidence={"evaluations": len(seen), "batchnorm_training": norm,
                  "dropout_training": dropout},
        fix="Call model.eval() before the validation loop and model.train() after it.")


def evaluated_in_train_mode(ctx):
    """The row (step, forwards, norm training, ...) when the forwards after the last step ran
    with a batch norm in training mode as an evaluation (module doc), else None."""
    rows = observed_list(ctx, "forwards_after_training")
    if not rows:
        return None
    row = rows[-1]
    (step, forwards, norm_training, _dropout, eval_after, _repeat, cumulative,
     earlier_train_mode_steps, _earlier_repeat) = row[:9]
    if norm_training < MIN_TRAIN_MODE_FORWARDS or eval_after or cumulative or \
            earlier_train_mode_steps:
        return None
    return row


def _predicted_after_training_with_dropout_on(ctx):
    """(Real-bug batch 263, pytorch/pytorch#1207: a sine regressor with dropout 0.5 asked for
    its predictions on a grid without ``model.eval()``: "much noise when predicting".) The
    no-gradient forwards after the last step ran with dropout on, no eval-mode forward came
    after them, no batch norm was in training mode (the reading above), the loop made no such
    forwards between its steps (its habit), and no input was passed MC_MIN_PASSES times in
    a row (Monte Carlo dropout done right). Those outputs - the predictions the script keeps -
    are one random thinned network's each, not the trained model's."""
    rows = observed_list(ctx, "forwards_after_training")
    if not rows or len(rows[-1]) < 11:
        return None                 # a run saved before these counts were kept
    step, forwards, norm_training, dropout_training, eval_after = rows[-1][:5]
    longest_dropout_repeat, earlier_dropout_steps = rows[-1][9:11]
    if dropout_training < MIN_DROPOUT_PREDICTIONS or norm_training or eval_after or \
            earlier_dropout_steps or longest_dropout_repeat >= MC_MIN_PASSES:
        return None
    return Finding(
        code="VALIDATION_IN_TRAIN_MODE", severity="warning", step=int(step),
        message=f"After the last training step the model ran {forwards} forward(s) without "
                f"gradients, {dropout_training} of them with dropout in training mode (no "
                "model.eval() after the loop), and no input was passed many times over (as "
                "Monte Carlo dropout does): every prediction came from a different random "
                "thinning of the network, noisier than the trained model's.",
        evidence={"forwards_after_last_step": forwards, "dropout_training": dropout_training,
                  "longest_repeat_of_one_input": longest_dropout_repeat},
        fix="Call model.eval() after the training loop, before predicting (for Monte Carlo "
            "dropout on purpose, pass each input many times and average).")


def _evaluated_after_training_in_train_mode(ctx):
    """VALIDATION_IN_TRAIN_MODE for the no-gradient forwards after the last step (calibration
    logits, rendered images: ``after_training.py`` says which count)."""
    row = evaluated_in_train_mode(ctx)
    if row is None:
        return None
    step, forwards, norm_training = row[:3]
    return Finding(
        code="VALIDATION_IN_TRAIN_MODE", severity="warning", step=int(step),
        message=f"After the last training step the model ran {forwards} forward(s) without "
                f"gradients, {norm_training} of them with its batch-norm layers in training "
                "mode (no model.eval() after the loop): each of those batches was normalised "
                "by its own statistics (a single sample against itself) and folded into the "
                "running averages, so what they computed (calibration logits, predictions, "
                "generated images) is not what the trained model gives, and the model kept "
                "has changed.",
        evidence={"forwards_after_last_step": forwards, "batchnorm_training": norm_training,
                  "dropout_training": row[3]},
        fix="Call model.eval() after the training loop, before collecting predictions; to "
            "recompute batch-norm statistics on purpose, use torch.optim.swa_utils.update_bn.")

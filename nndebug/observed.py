"""What the monitor observes around the model, beside the per-step statistics: plain data.

The per-step records (``nndebug.records``) describe the parameters and the layers the model
registers. Many real bugs live just outside that view, so the monitor also writes down:

- ``LossCall``: what reached the loss on a recorded step (the model's output and the
  targets: shapes and a few numbers), seen through the ``loss_fn`` given to ``watch`` or
  through the hooks of a loss module;
- ``RaisedWarning``: a warning the framework raised inside a watched step (torch's "Using a
  target size that is different to the input size" broadcast warning, ...);
- ``UnregisteredUse``: a module that ran inside the model's forward pass but is not in
  ``model.modules()``, or a tensor that takes part in the output with ``requires_grad`` but
  is not in ``model.parameters()`` (layers in a plain Python list, a layer built inside
  ``forward``);
- ``FrozenTensor``: a parameter with ``requires_grad=False``, its shape and the statistics
  that tell whether it still looks like a fresh initialisation;
- ``NormBatch``: how many samples a batch-norm layer normalised over in a training forward;
- ``NormSetting``: a batch-norm layer's momentum, read once when watching starts;
- ``OptimizerSetting``: one param group of the optimizer (its class, lr, weight decay, eps,
  momentum or betas), read once when watching starts;
- ``DropoutSetting``: a dropout layer's rate ``p``, read once when watching starts;
- ``SchedulerState``: a learning-rate scheduler driving the optimizer (its class, and a
  plateau scheduler's mode, best value and counters), read when the monitor closes;
- ``LossTerm``: an addend of the loss's top-level sum that carries no gradient (a constant
  made through argmax, ``.item()``, NumPy or no_grad), on the first recorded steps;
- ``FunctionalDropout``: a dropout function call in a module's ``forward`` whose
  ``training`` argument is missing or True (it drops in eval too), read once at watch start;
- ``LayerLayout``: the input and output shapes of the layers that say which axis of a 3-D
  tensor holds the features (Conv1d and BatchNorm1d: axis 1; Embedding, LayerNorm, RNNs,
  attention: the last), on the first recorded steps of a model that has both kinds;
- plain rows, each read by one rule (their monitor files say how they are kept): the
  optimizers built anew over the watched parameters (``optimizer_starts``), the scale and
  layer modes of the validation passes (``validation_inputs``), ``torch.manual_seed`` calls
  (``seed_calls``), how evaluation windows overlap training windows (``window_overlap``),
  modules given a plain ``requires_grad = False`` attribute (``module_freeze_flags``),
  parameters stored in 16-bit formats (``parameter_dtypes``), recurrent layers started from
  a state drawn at random in ``forward`` (``random_rnn_states``), the row sums of
  cross-entropy's probability targets (``soft_target_rows``), two optimizers stepping the
  same tensors in one step (``shared_optimizers``) and the first rows of two
  validation passes' inputs (``validation_draws``, NumPy arrays: saved in the run file's
  arrays section).

Every observation is a declared field of ``Observed`` below, never an attribute added at run
time: ``nndebug.runfile`` saves and loads the declared fields, so the rules give a loaded run
the same findings as the live one.

Nothing here knows a framework (NumPy and Python numbers only), so the rules
(``nndebug.rules.loss_side``, ``nndebug.rules.structure``) are tested on hand-made data.
"""
from dataclasses import dataclass, field


@dataclass
class LossCall:
    step: int
    loss: str                     # "BCEWithLogitsLoss", "mse_loss", or the loss_fn's name
    output_shape: tuple
    target_shape: "tuple | None"
    output_min: float = float("nan")
    output_max: float = float("nan")
    row_sum_error: "float | None" = None   # max |sum over dim 1 - 1| (>= 2 columns), else None
    target_min: float = float("nan")
    target_max: float = float("nan")
    target_integer: "bool | None" = None   # every target a whole number (class indices, 0/1)
    # class-index losses (cross-entropy, NLL): what the loss skips, and the most frequent
    # target id in a sample of the targets (padding shows up as a frequent id in runs)
    ignore_index: "int | None" = None      # the loss's ignore_index (None: not known)
    reduction: "str | None" = None         # "mean", "sum", "none" (None: not known)
    target_mode: "float | None" = None     # the most frequent target id in the sample
    target_mode_share: "float | None" = None    # its share of the sampled targets
    target_mode_in_runs: "float | None" = None  # share of its occurrences next to another one
    target_others_in_runs: "float | None" = None  # the same for every other id together
    target_mode_in_tails: "float | None" = None   # share of its occurrences in a run that
                                           # ends or starts its row (a 2-D target: padded
                                           # tails; batch 89)
    # class scores floored (a ReLU or clamp on the logits): the share of rows whose lowest
    # score is shared exactly by several classes and lies above FLOOR_ABOVE (not a mask),
    # and the columns at that floor in every row
    floored_rows: "float | None" = None
    floored_units: "int | None" = None
    # class weights of a class-index loss (its weight=), and how often each class id occurs
    # in the sampled targets (ids 0..MAX_CLASSES-1): CLASS_WEIGHTS_REVERSED reads both
    class_weights: "tuple | None" = None
    target_counts: "tuple | None" = None
    # float targets of the output's 2-D shape that are all exact 0s and 1s (labels, not
    # probabilities), in the first rows read: how many rows, how many hold exactly one 1,
    # how many several, and the most 1s in a row (label_rows 0: read, and not labels;
    # None: not read)
    label_rows: "int | None" = None
    one_hot_rows: "int | None" = None
    multi_hot_rows: "int | None" = None
    max_labels_in_row: "int | None" = None
    # those label rows' share of 1s in each column (one per label), and a binary loss's
    # pos_weight (one per label, or one for all): CLASS_WEIGHTS_REVERSED reads both
    label_shares: "tuple | None" = None
    pos_weight: "tuple | None" = None
    # the shape of the tensor the loss's input is a plain view of, when that has another
    # number of dimensions (torch's ``_base``: ``scores.view(-1, C)`` of (N, C, H, W) scores
    # keeps (N, C, H, W) here; a permuted copy, a tensor of its own, or minigrad: None)
    viewed_from: "tuple | None" = None
    # class-index losses over at most MAX_CLASSES classes: the class ids the model picks (its
    # highest score) for some row or position of the batch, in order (None: not read); a
    # rare class missing here late in the run is never predicted (rules/rare_classes.py)
    predicted_classes: "tuple | None" = None
    # a rate loss's ``log_input`` (PoissonNLLLoss): False when it takes the log of its input
    # (LOG_OF_UNBOUNDED_OUTPUT, real-bug batch 69); None where the loss has none
    log_input: "bool | None" = None
    # a log-probability loss's (N, C, ...) input, first calls (monitor/log_prob_axes.py): the
    # largest |sum of exp - 1| over the class axis (dim 1) and over the batch axis (dim 0);
    # a softmax over the batch leaves only the second near 0 (real-bug batch 97); for CTC's
    # (T, N, C) input the class axis is the last and dim 0 is time (batch 176)
    class_mass_error: "float | None" = None
    batch_mass_error: "float | None" = None
    # the first calls' sampled rows of class scores: how many different rows the loss read
    # and how many the model's own output rows held (monitor/gathered_rows.py; a 0/1 mask
    # used as an index gathers one or two rows, real-bug batch 160)
    distinct_rows: "int | None" = None
    model_distinct_rows: "int | None" = None
    # the first rows of a 2-D float target that hold exactly two values, 0 and one other:
    # that other value (labels multiplied by a pixel scale arrive as 0 and 1/256, real-bug
    # batch 185); None when not read or not two such levels
    label_level: "float | None" = None
    sample_loss_cv: "float | None" = None  # an element-wise regression loss: the spread of
                                           # the samples' errors over their mean (batch 335;
                                           # None when not read)


@dataclass
class RaisedWarning:
    step: int
    category: str                 # "UserWarning"
    message: str
    where: str = ""               # the module running when it was raised ("" when unknown)
    filename: str = ""
    lineno: int = 0
    input_dims: int = -1          # the dimensions of a softmax input whose dim was implicit
                                  # (-1: another warning; real-bug batch 333)


@dataclass
class UnregisteredUse:
    kind: str                     # "module" or "tensor"
    type: str                     # "Linear", "Dropout", "Parameter", "Tensor"
    shapes: list = field(default_factory=list)    # parameter shapes (module) or the shape
    called_from: str = ""         # the registered module that was running ("" = the model)
    steps: list = field(default_factory=list)     # recorded steps it was seen in
    count: int = 1                # how many such objects one forward pass uses
    new_each_step: bool = False   # other objects on a later step than on the first: built in
                                  # forward


@dataclass
class FrozenTensor:
    name: str                     # as named_parameters() spells it
    shape: tuple
    fan_in: int = 0               # inputs per output unit (weights); 0 for vectors
    fan_out: int = 0
    mean: float = 0.0
    std: float = 0.0
    absmax: float = 0.0
    kurtosis: float = float("nan")   # E[(w - mean)^4] / std^4: 1.8 uniform, 3 normal
    unit_spread: "float | None" = None   # std / mean of the squared norms of its rows
                                         # (one per output unit; None: not taken, one row)
    unit_rows: int = 0            # rows that spread was taken over
    measured: int = 0             # values the statistics were taken on (0: all of them)
    changed: "bool | None" = None    # whether it changed during the run (None: not checked)
    before_trainable: bool = False   # a trainable parameter is registered after it: the layer
                                     # sits in front of trained ones (a stem, a backbone)
    unfrozen: "bool | None" = None   # requires_grad set back to True during the run
    in_optimizer: "bool | None" = None   # whether the optimizer held it when last looked at
    input_spread: "float | None" = None  # the same spread over its columns (one per input
                                         # position of a row; None: not taken)
    input_columns: int = 0        # columns that spread was taken over


@dataclass
class NormBatch:
    step: int
    layer: str
    samples: int                  # batch size N
    values_per_channel: int       # N times the spatial size: what each mean/variance is over
    momentum: "float | None" = None   # the layer's momentum during this call (None: a
                                  # cumulative average, no running statistics, or not read);
                                  # a loop may change it between calls (SAM's bypass helpers)


@dataclass
class NormSetting:
    layer: str
    type: str                     # "BatchNorm1d", "SyncBatchNorm", ...
    momentum: "float | None"      # the weight of the NEW batch in the running statistics
                                  # (PyTorch's convention); None: a cumulative average
    tracks_running_stats: bool = True   # False: no running statistics, momentum unused


@dataclass
class OptimizerSetting:
    """One param group of the watched optimizer, as it stood when watching started
    (``monitor/settings.py``): static settings, read once, nothing per step."""
    group: int                    # the group's index in optimizer.param_groups
    type: str                     # "Adam", "AdamW", "SGD", minigrad's "Adam", ...
    lr: "float | None" = None
    weight_decay: "float | None" = None
    decoupled: bool = False       # the decay shrinks the weights apart from the gradient
                                  # (AdamW, decoupled_weight_decay=True); False: added to it
    eps: "float | None" = None
    momentum: "float | None" = None   # SGD / RMSprop; None where the optimizer has none
    betas: "tuple | None" = None      # Adam family; None elsewhere
    parameters: int = 0           # parameter tensors in the group
    built_with_lr: "float | None" = None   # the lr the optimizer's constructor was given
                                  # (optimizer.defaults); a group's own rate, a scheduler or
                                  # a loaded state dict can leave the group at another one
    held_state: bool = False      # the optimizer already held per-parameter state (moments,
                                  # momentum buffers) when watching started: stepped before,
                                  # or restored from a checkpoint


@dataclass
class DropoutSetting:
    layer: str                    # as named_modules() spells it
    type: str                     # "Dropout", "Dropout2d", "AlphaDropout", ...
    p: "float | None"             # the probability of ZEROING a value (torch's and
                                  # minigrad's convention; TensorFlow 1's keep_prob is 1 - p)


@dataclass
class PaddingLookup:
    step: int
    layer: str                    # an embedding declared with a padding_idx
    padding_idx: int
    ids_shape: tuple              # the shape of the ids it was given
    padding_count: int            # how many of them were the padding id


@dataclass
class SchedulerState:
    """A learning-rate scheduler driving the watched optimizer, as read when the monitor
    closed or findings were asked for (``monitor/schedulers.py``)."""
    type: str                     # "ReduceLROnPlateau", "StepLR", "CosineAnnealingLR", ...
    calls: int                    # step() calls by the user (not the one made when built)
    lrs: tuple = ()               # each group's learning rate when read
    base_lrs: "tuple | None" = None   # each group's starting rate (None: plateau schedulers)
    length: "int | None" = None   # the step() calls the schedule is planned for: T_max of a
                                  # CosineAnnealingLR (half its period), total_steps of a
                                  # OneCycleLR, total_iters of a LinearLR / ConstantLR /
                                  # PolynomialLR; None for schedules without one; of a
                                  # LambdaLR, the step its lambda first reaches zero
                                  # (monitor/lambda_schedules.py)
    periodic: "bool | None" = None  # a LambdaLR's lambda climbs back up past that zero (a
                                    # cosine past its horizon); None: not read
    # ReduceLROnPlateau only (None for the others)
    mode: "str | None" = None     # "min" or "max"
    threshold: "float | None" = None
    threshold_mode: "str | None" = None   # "rel" or "abs"
    patience: "float | None" = None
    cooldown: "float | None" = None
    cooldown_counter: "float | None" = None
    factor: "float | None" = None         # each cut multiplies the rate by it
    best: "float | None" = None           # the best metric it was stepped with (inf: none)
    num_bad_epochs: "float | None" = None  # calls since best improved (reset by each cut)
    eps: "float | None" = None            # a cut smaller than this is not made
    min_lrs: "tuple | None" = None        # the floor of each group's rate


@dataclass
class LossTerm:
    """An addend of the loss's top-level sum (through +, - and scaling by constants) that is
    a constant, or computed through sign/round/floor: it moves the loss's value, not one
    parameter (``monitor/loss_terms.py``)."""
    step: int
    value: "float | None"         # what it adds to the loss (None: the graph did not say)
    share: "float | None"         # |value| / |loss| (None: value not known)
    made_by: str = ""             # the operation that added it ("AddBackward0", "add")
    computed: bool = False        # made from tensors by a reduction (a penalty summed from
                                  # detached copies), not a constant started at zero
                                  # (real-bug batch 58)
    data_only: bool = False       # computed under the constants mode from data alone: no
                                  # tensor of the model's, nothing from the host (real-bug
                                  # batch 206: a Sinkhorn divergence's prior-only term)
    cut_by: str = ""              # a term with a graph that a zero-derivative operation cuts
                                  # from every parameter ("SignBackward0"; real-bug batch
                                  # 346); "" for a constant


@dataclass
class FunctionalDropout:
    """A dropout function call in a module's ``forward`` that keeps dropping in eval mode:
    its ``training`` argument is missing (the functional default is True) or a literal True
    (``monitor/functional_dropout.py``)."""
    module_type: str              # the class whose forward makes the call
    file: str                     # its source file ("" when not known)
    line: int                     # the call's line in that file
    call: str                     # the call as written, shortened


@dataclass
class LayerLayout:
    """One call of a layer whose feature axis is fixed, on a recorded step
    (``monitor/layer_layouts.py``): Conv1d, BatchNorm1d and InstanceNorm1d take axis 1 of a
    3-D tensor as their channels ("channels_first"); Embedding (its output), LayerNorm, the
    RNNs and attention keep the features on the last axis ("channels_last")."""
    step: int
    order: int                    # the call's place among the layout calls of that step
    layer: str                    # the module's name in the model
    type: str                     # its class name
    role: str                     # "channels_first" or "channels_last"
    input_shape: tuple            # () where the input was no tensor (or none was given)
    output_shape: tuple           # () likewise
    kernel: "int | None" = None   # a convolution's kernel width (None: not a convolution)
    one_hot_axis: "int | None" = None  # 1 or 2: the axis along which a channels-first
                                       # layer's 3-D input is one-hot (each row of 0s has a
                                       # single 1 there); None: not one-hot, or not checked


BATCH_ROWS_REMEMBERED = 4096   # [design] distinct input rows the monitor remembers for
                               # ``batch_rows`` (monitor/sample_rows.py): enough to tell "a
                               # handful"; past it the count of rows seen stops growing
STEP_LISTS = ("leaf_losses", "carried_eval_gradients", "repeated_optimizer_steps")
"""``Observed``'s plain lists of step numbers: saved, loaded and continued alike."""

ROW_LISTS = ("optimizer_starts", "validation_inputs", "seed_calls", "module_freeze_flags",
             "soft_target_rows", "shared_optimizers", "whole_batch_norms",
             "nonfinite_births", "loss_reductions", "detached_terms", "self_additions")
"""``Observed``'s plain lists of tuples (one rule reads each): ``nndebug.runfile`` writes
them as JSON lists and reads each row back with its types."""
ROW_LISTS += ("repeated_modules", "stacked_linears")   # real-bug batch 23 (model definition)
ROW_LISTS += ("joint_scaling",)   # real-bug batch 26 (sequence leaks)
ROW_LISTS += ("training_input_signs",)   # core variants 7 (VALIDATION_INPUTS_RESCALED)
ROW_LISTS += ("policy_gradient_terms", "entropy_terms")   # real-bug batch 25 (RL loops)
ROW_LISTS += ("lr_multipliers", "slow_group_weights")   # real-bug batch 28 (fine-tuning)
ROW_LISTS += ("feature_moments",)   # real-bug batch 27 (tabular)
ROW_LISTS += ("validation_sets",)   # OVERFITTING on one validation set (wrong causes)
ROW_LISTS += ("unannounced_evaluations",)   # real-bug batch 242 (evaluations, no val_loss)
ROW_LISTS += ("signed_targets",)   # real-bug batch 29 (loss misuse)
ROW_LISTS += ("token_id_shares",)   # real-bug batch 30 (text pipelines)
ROW_LISTS += ("category_id_shares",)   # real-bug batch 273 (tabular categorical columns)
ROW_LISTS += ("propagation_matrices", "squashed_batch_sums")   # real-bug batch 31 (graphs)
ROW_LISTS += ("maximised_probabilities",   # real-bug batch 68 (minus a mean probability,
              "loss_hinges",   # hinges beside a normalisation,
              "narrow_lookups")   # a table's lookups of one step)
ROW_LISTS += ("reversed_concatenations",)   # real-bug batch 34 (recurrent)
ROW_LISTS += ("null_condition_lookups",)   # real-bug batch 120 (a class table's null row)
ROW_LISTS += ("straight_through_cancellations",)   # real-bug batch 32 (gradient code)
ROW_LISTS += ("aliased_state_loads", "resumed_optimizers")   # real-bug batch 33 (loops)
ROW_LISTS += ("discarded_losses", "gradients_after_step")   # real-bug batch 39 (loops)
ROW_LISTS += ("parameter_penalties",)   # real-bug batch 36 (several losses)
ROW_LISTS += ("penalty_decays",)   # real-bug batch 277 (a hand-written L2 penalty's strength)
ROW_LISTS += ("summed_errors",)   # real-bug batch 281 (a squared error after the first loss)
ROW_LISTS += ("other_turn_gradients",)   # real-bug batch 36 (several optimizers)
ROW_LISTS += ("other_optimizer_carries",)   # real-bug batch 187 (an unwatched optimizer)
ROW_LISTS += ("trained_loss_nodes",)   # real-bug batch 72 (a loss term never added)
ROW_LISTS += ("outer_differences",)   # real-bug batch 35 (samples mixed across the batch)
ROW_LISTS += ("reparameterisations",)   # real-bug batch 37 (generative models)
ROW_LISTS += ("whole_batch_overlaps",)   # real-bug batch 38 (segmentation losses)
ROW_LISTS += ("ctc_blank_targets",)   # real-bug batch 38 (speech losses)
ROW_LISTS += ("ctc_alignments",)   # real-bug batch 89 (CTC lengths and label ids)
ROW_LISTS += ("visible_targets", "order_blind_outputs",
              "cross_document_reads")   # real-bug batch 40 (transformer training)
ROW_LISTS += ("one_unit_softmaxes", "transposing_reshapes")   # real-bug batch 41 (vision)
ROW_LISTS += ("target_column_scales",)   # real-bug batch 42 (regression numerics)
ROW_LISTS += ("box_corner_orders",)   # real-bug batch 262 (box corners left unswapped by a flip)
ROW_LISTS += ("near_zero_divisors",)   # real-bug batch 42 (percentage errors)
ROW_LISTS += ("target_value_matches",)   # real-bug batch 42 (windows reading ahead)
ROW_LISTS += ("diffusion_noise_levels",)   # real-bug batch 71 (diffusion forward process)
ROW_LISTS += ("conflicting_label_rows",)   # real-bug batch 45 (one file read for two labels)
ROW_LISTS += ("class_only_padding",   # real-bug batch 65 (one class padded,
              "position_losses")   # labels drifting from the frames)
ROW_LISTS += ("in_place_skips", "shared_norm_sites")   # real-bug batch 43 (model wiring)
ROW_LISTS += ("start_parameter_values",   # real-bug batch 64 (parameters never initialised,
              "in_place_inputs")   # a forward writing into its own input)
ROW_LISTS += ("pretrained_norm_inputs",)   # real-bug batch 73 (data unlike a pretrained BN's)
ROW_LISTS += ("loss_weights",)   # real-bug batch 74 (a loss divided twice when accumulating)
ROW_LISTS += ("identical_units",)   # real-bug batch 80 (units copies of each other)
ROW_LISTS += ("turned_off_parameters",)   # real-bug batch 81 (requires_grad turned off)
ROW_LISTS += ("output_row_norms",)   # real-bug batch 156 (class-incremental heads)
ROW_LISTS += ("zero_start_parameters",)   # real-bug batch 82 (parameters started all zero)
ROW_LISTS += ("one_signed_start_parameters",)   # real-bug batch 247 (uniform_ at its [0, 1))
ROW_LISTS += ("pooled_log_probs", "ppo_ratios")   # real-bug batch 44 (policy-gradient losses)
ROW_LISTS += ("validation_row_matches",   # real-bug batch 46 (rows in both splits,
              "row_standardised_inputs")   # tables standardised per row)
ROW_LISTS += ("input_gradient_passes",)   # real-bug batch 87 (adversarial training)
ROW_LISTS += ("split_sizes",)   # real-bug batch 268 (a held-out split larger than training)
ROW_LISTS += ("unloaded_checkpoints",)   # real-bug batch 90 (checkpoints never loaded)
ROW_LISTS += ("averaged_copies",)   # real-bug batch 96 (EMA/SWA copies of the model)
ROW_LISTS += ("pruned_weight_regrowth", "pruned_layers")   # real-bug batch 94 (pruning)
ROW_LISTS += ("update_fits",)   # real-bug batch 99 (updates written by hand)
ROW_LISTS += ("carried_state",)   # real-bug batch 100 (optimizer state from an earlier run)
ROW_LISTS += ("late_gradients", "uncleared_gradients")   # real-bug batch 50 (loop order)
ROW_LISTS += ("rewritten_weights", "self_references")   # real-bug batch 58 (copies)
ROW_LISTS += ("constant_decoder_inputs",)   # real-bug batch 49 (a decoder fed zeros)
ROW_LISTS += ("swapped_loss_arguments",   # real-bug batch 52 (BCE arguments,
              "squashed_score_terms")   # a critic's score through a sigmoid)
ROW_LISTS += ("repeated_output_calls",)   # real-bug batch 269 (one output layer, two targets)
ROW_LISTS += ("single_value_norms", "dropout_outputs", "unchanged_running_buffers",
              "soft_target_padding")   # real-bug batch 60 (norms, dropout, smoothing)
ROW_LISTS += ("duplicated_arguments",)   # real-bug batches 314-315 (one tensor given twice)
ROW_LISTS += ("duplicated_input_columns",   # real-bug batch 59 (copied feature lines,
              "input_ranges",   # a scaler fitted before the split in time,
              "validation_teacher_inputs")   # a decoder teacher-forced at validation)
ROW_LISTS += ("derivative_calls",   # real-bug batch 56 (losses built from derivatives:
              "per_position_gradient_norms")   # autograd.grad calls, norms per pixel)
ROW_LISTS += ("derivative_reach",)   # real-bug batch 336 (a penalty computed, never added)
ROW_LISTS += ("soft_target_agreement", "foreign_norm_statistics",
              "foreign_train_dropouts")   # real-bug batch 55 (distillation, teachers)
ROW_LISTS += ("outside_parameters",)   # real-bug batches 155/161 (parts outside the model)
ROW_LISTS += ("multiplied_skips",   # real-bug batch 57 (vision transformers: a skip
              "head_softmaxes",   # joined with *, a softmax over all heads' keys,
              "patch_grid_reshapes")   # patches cut or pasted by one reshape)
ROW_LISTS += ("rounded_input_columns",   # real-bug batch 61 (inputs cast to bfloat16,
              "wrapped_input_levels",   # uint8 arithmetic wrapped around,
              "validation_target_kinds")   # validation targets cast with .long())
ROW_LISTS += ("category_code_columns",   # real-bug batch 63 (a weekday code as one number,
              "embedding_field_ranges",   # field offsets that overlap in one table,
              "frozen_table_probes")   # a frozen table's rows against its ids)
ROW_LISTS += ("scattered_messages",   # real-bug batch 66 (graphs: messages by index,
              "feature_axis_readouts")   # a readout pooled over the features)
ROW_LISTS += ("tiny_norm_batches",)   # core variants: a batch norm's 1-2 sample batch, any step
ROW_LISTS += ("mixup_partner_rows",   # real-bug batch 76 (mixup labels paired by a 2nd shuffle,
              "augmented_target_rows")   # masks put through the colour jitter)
ROW_LISTS += ("mask_placement_rows",)   # real-bug batches 67, 242 (masks not moved with images)
ROW_LISTS += ("target_offset_rows",)   # real-bug batch 360 (input and target cropped apart)
ROW_LISTS += ("unguarded_logs", "picked_probability_losses",
              "class_mean_losses", "empty_overlap_targets")   # real-bug batch 75 (hand-written losses)
ROW_LISTS += ("attention_scales",)   # real-bug batch 79 (transformer blocks: logits' factors)
ROW_LISTS += ("uniform_attention",)   # real-bug batch 101 (attention weights swamped to uniform)
ROW_LISTS += ("weights_on_grid",)   # real-bug batch 106 (weights quantized into the parameter)
ROW_LISTS += ("soft_target_gradients",   # real-bug batch 85 (soft targets with a gradient,
              "self_masked_targets")   # a BCE weighted by its own targets)
ROW_LISTS += ("batch_totals_in_terms",)   # real-bug batch 83 (a batch's total in a per-sample term)
ROW_LISTS += ("recomputed_segments",)   # real-bug batch 88 (activation checkpointing)
ROW_LISTS += ("fragile_operations",)   # real-bug batch 92 (NaN born later: x / std, ...)
ROW_LISTS += ("scoped_loaders", "stored_data_scales",   # real-bug batch 95 (DataLoaders in
              "loader_batch_forwards")   # scope, their stored data, batches as forwarded)
ROW_LISTS += ("posterior_draws",)   # real-bug batch 91 (how a VAE's z = mu + eps * std is drawn)
ROW_LISTS += ("eval_mode_accumulations",   # real-bug batch 102 (eval-mode micro-batches,
              "eval_mode_step_bursts")   # optimizer steps taken in an evaluation loop)
ROW_LISTS += ("module_backwards",)   # real-bug batch 107 (modules writing their own backward)
ROW_LISTS += ("placeholder_points",)   # real-bug batch 115 (unlabelled keypoints trained)
ROW_LISTS += ("random_projections",)   # real-bug batch 113 (random features drawn in forward)
ROW_LISTS += ("forwards_after_training",)   # real-bug batches 105/114 (forwards after the last step)
ROW_LISTS += ("closure_steps",)   # real-bug batch 116 (optimizer.step(closure): L-BFGS)
ROW_LISTS += ("negative_rates",)   # real-bug batch 123 (a learning rate below zero)
ROW_LISTS += ("stopped_rates",)   # real-bug batch 284 (a rate at zero between judged records)
ROW_LISTS += ("softmax_read_as_logits",)   # real-bug batch 124 (Categorical(logits=probs))
ROW_LISTS += ("handwritten_errors",)   # real-bug batch 126 (((pred - target) ** 2).mean())
ROW_LISTS += ("head_rows",)   # real-bug batch 131 (output units that never get a gradient)
ROW_LISTS += ("ranked_losses",)   # real-bug batch 135 (per-sample losses ranked to pick rows)
ROW_LISTS += ("restored_checkpoints",)   # real-bug batch 139 (which weights a restore loads)
ROW_LISTS += ("channel_scales",)   # real-bug batch 138 (each input channel's scale)
ROW_LISTS += ("sample_normalised_inputs",)   # real-bug batch 172 (per-sample normalisation)
ROW_LISTS += ("soft_cross_entropies",)   # real-bug batch 192 (-(t * log_softmax(s)).sum())
ROW_LISTS += ("window_borders",)   # real-bug batches 170/283 (a state reset between windows)
ROW_LISTS += ("norms_at_findings",)   # real-bug batch 325 (weights trained between records)
ROW_LISTS += ("backward_passes",)   # real-bug batch 330 (gradients averaged by hand)
ROW_LISTS += ("mask_indexes",)   # real-bug batch 351 (a 0/1 mask read as positions)


@dataclass
class Observed:
    """Everything above, for one run (``RunRecord.observed``)."""

    loss_calls: list = field(default_factory=list)        # [LossCall]
    warnings: list = field(default_factory=list)          # [RaisedWarning]
    unregistered: list = field(default_factory=list)      # [UnregisteredUse]
    frozen: list = field(default_factory=list)            # [FrozenTensor]
    norm_batches: list = field(default_factory=list)      # [NormBatch]
    norm_settings: list = field(default_factory=list)     # [NormSetting]
    optimizer_settings: list = field(default_factory=list)  # [OptimizerSetting]
    dropout_settings: list = field(default_factory=list)  # [DropoutSetting]
    padding_lookups: list = field(default_factory=list)   # [PaddingLookup]
    schedulers: list = field(default_factory=list)        # [SchedulerState]
    targets: list = field(default_factory=list)           # [(step, target tensor)] the targets
                                                          # that reached the loss, kept for
                                                          # probes (framework tensors; few)
    batch_rows: list = field(default_factory=list)        # [(step, batch size, distinct rows
                                                          # in it, distinct rows seen so far)]
                                                          # (monitor/sample_rows.py)
    graph_nodes: list = field(default_factory=list)       # [(step, operations in the loss's
                                                          # graph)] on the first recorded steps
    leaf_losses: list = field(default_factory=list)       # [step] where the loss required a
                                                          # gradient but had no graph at all
                                                          # (requires_grad set on it by hand)
    carried_eval_gradients: list = field(default_factory=list)  # [step] whose training
                                                          # backward found .grad still holding
                                                          # an eval-mode backward's gradients
                                                          # (monitor/carried_gradients.py)
    repeated_optimizer_steps: list = field(default_factory=list)  # [step] with more
                                                          # optimizer steps than backward
                                                          # passes (monitor/optimizer_steps.py)
    repeated_total: int = 0          # how many steps were, the first 64 kept above
    eval_mode_accumulations: list = field(default_factory=list)  # [(step, first eval-mode
                                     # dropout/BN layer, how many)]: an eval-mode backward
                                     # added to the step's train-mode gradient
                                     # (monitor/carried_gradients.py)
    eval_mode_step_bursts: list = field(default_factory=list)  # [(step, optimizer steps
                                     # taken in eval mode in it (2+), train-mode optimizer
                                     # steps before)] (monitor/optimizer_steps.py)
    stepped_since: "int | None" = None   # the watched step from which the optimizer's step
                                     # hook counts (None: no hook) (monitor/optimizer_steps.py)
    stepped_total: int = 0           # watched steps since then in which the optimizer stepped
    train_backward_total: int = 0    # train-mode backward passes that reached the watched
                                     # model's first trainable tensor since watch began: a
                                     # multiple of the steps when gradients are accumulated
                                     # (monitor/carried_gradients.py)
    multi_step_total: int = 0        # watched steps in which it stepped twice or more (an
                                     # update then spans several steps: rules/adam_step_bound.py)
    unstepped_gradients: int = 0     # parameter tensors holding a gradient when findings
                                     # were read before any step() (monitor/unstepped.py)
    loss_terms: list = field(default_factory=list)        # [LossTerm] on the first steps
    functional_dropouts: list = field(default_factory=list)  # [FunctionalDropout]
    layer_layouts: list = field(default_factory=list)     # [LayerLayout] on the first steps
    optimizer_starts: list = field(default_factory=list)  # [(step, optimizer class name,
                                                          # first group's learning rate)]
                                                          # of each stateful optimizer that
                                                          # first stepped the watched
                                                          # parameters, the first 64
                                                          # (monitor/optimizer_restarts.py)
    validation_inputs: list = field(default_factory=list)  # [(step, mean, std, a batch-norm
                                                          # layer in training mode, a dropout
                                                          # layer in training mode, the
                                                          # share of negative entries)] of
                                                          # the first validation forwards;
                                                          # mean, std and share NaN for token
                                                          # ids (monitor/validation_inputs.py)
    unannounced_evaluations: list = field(default_factory=list)  # the same rows for
                                                          # the first eval-mode forwards
                                                          # without gradients between steps
                                                          # of a run that passed no val_loss
                                                          # (monitor/validation_inputs.py)
    training_input_signs: list = field(default_factory=list)  # [(step, the share of
                                                          # negative entries)] of the first
                                                          # training batches, read only when
                                                          # the run validates (core variants
                                                          # 7, monitor/training_input_signs.py)
    seed_calls: list = field(default_factory=list)        # [(step, seed)] of the user's
                                                          # torch.manual_seed calls while
                                                          # watching, the first 64
                                                          # (monitor/seed_calls.py)
    shared_optimizers: list = field(default_factory=list)  # [(step, [two optimizer class
                                                          # names], watched tensors both
                                                          # hold)]: two optimizers stepping
                                                          # the same tensors in one step
                                                          # (monitor/shared_optimizers.py)
    whole_batch_norms: list = field(default_factory=list)  # [(step, [quotient shape])]: a
                                                          # batch of rows divided by one norm
                                                          # of the whole batch, on the first
                                                          # recorded steps
                                                          # (monitor/whole_batch_norms.py)
    repeated_modules: list = field(default_factory=list)  # [(container name, child type,
                                                          # [positions], trainable tensors)]:
                                                          # one module object at several
                                                          # positions of a Sequential or
                                                          # ModuleList, read at findings
                                                          # (monitor/repeated_modules.py)
    policy_gradient_terms: list = field(default_factory=list)  # [(step, weight kind,
                                                          # "both"/"one" signs, log-probs
                                                          # picked, rows of their
                                                          # distribution, entries of the
                                                          # log-prob side as multiplied
                                                          # (batch 294: a ratio broadcast
                                                          # after the pick))]: log_prob(action)
                                                          # x weight products of the loss, on
                                                          # the first recorded steps
                                                          # (monitor/policy_gradient_terms.py)
    entropy_terms: list = field(default_factory=list)  # [(step, "maximised" or
                                                          # "minimised")]: what descent does
                                                          # to a p * log p term's entropy, on
                                                          # the first recorded steps
                                                          # (monitor/policy_gradient_terms.py)
    stacked_linears: list = field(default_factory=list)  # [(step, first Linear, second
                                                          # Linear, first's in_features, width
                                                          # between, second's out_features,
                                                          # first trains)]: a Linear reading
                                                          # another's output directly, on the
                                                          # first recorded steps
                                                          # (monitor/stacked_linears.py)
    nonfinite_births: list = field(default_factory=list)  # [(step, "forward" or "backward",
                                                          # operation, module or "", source
                                                          # line, output non-finite)]: where
                                                          # a recorded step's first NaN/Inf
                                                          # was made
                                                          # (monitor/nonfinite_origins.py)
    loss_reductions: list = field(default_factory=list)  # [(step, [(operation, "sum" or
                                                          # "mean", constant scale or None,
                                                          # batch size)])]: how each addend of
                                                          # the loss was reduced over the
                                                          # batch, on the first recorded steps
                                                          # (monitor/loss_reductions.py)
    self_additions: list = field(default_factory=list)  # [(step, additions in the model's
                                                          # forward whose two operands are one
                                                          # activation: x + x)] on the first
                                                          # recorded steps
                                                          # (monitor/self_additions.py)
    detached_terms: list = field(default_factory=list)  # [(step, operation of an addend of
                                                          # the loss that reaches another
                                                          # network only, its parameter
                                                          # tensors, "stepped" or "dropped")]:
                                                          # what that network's optimizer did
                                                          # with the addend's gradient
                                                          # (monitor/detached_terms.py)
    window_overlap: "dict | None" = None   # evaluation windows against training windows:
                                           # {"rows", "train_rows", "exact", "shifted":
                                           # [(axis, shift, rows matched)]}; None: not
                                           # compared (monitor/window_overlap.compare)
    module_backwards: list = field(default_factory=list)  # [(module name, class name)] of
                                                          # the modules whose own class
                                                          # defines backward(grad), never
                                                          # called by autograd (read at
                                                          # findings; monitor/
                                                          # module_backwards.py)
    module_freeze_flags: list = field(default_factory=list)  # [(module name, [its trainable
                                                          # parameters])] of the modules whose
                                                          # plain attribute requires_grad is
                                                          # False ("" is the model itself;
                                                          # monitor/module_flags.py)
    parameter_dtypes: dict = field(default_factory=dict)  # {parameter name: "bfloat16" or
                                                          # "float16"}: the parameters stored
                                                          # in 16 bits, read at findings
                                                          # (monitor/parameter_dtypes.py)
    random_rnn_states: list = field(default_factory=list)  # [{"module_type", "layer",
                                                          # "file", "line", "call"}] of the
                                                          # recurrent calls given a state
                                                          # drawn at random, read once at
                                                          # watch start
                                                          # (monitor/random_states.py)
    soft_target_rows: list = field(default_factory=list)  # [(step, loss name, [row sums])]
                                                          # of the kept probability targets,
                                                          # read at findings
                                                          # (monitor/soft_target_rows.py)
    lr_multipliers: list = field(default_factory=list)  # [(group, multiplier key or "",
                                                          # multiplier or None, lr now)] when
                                                          # a param group carries an lr_mult-
                                                          # like key, read at findings
                                                          # (monitor/lr_multipliers.py)
    feature_moments: list = field(default_factory=list)  # [("train" or "validation",
                                                          # step, rows, per-column means,
                                                          # per-column population stds)] of
                                                          # a table model's inputs
                                                          # (monitor/feature_moments.py)
    slow_group_weights: list = field(default_factory=list)  # [(group, its lr, fastest
                                                          # lr, weight name, initialiser it
                                                          # looks like or "")] of the groups
                                                          # at a fine-tuning rate, read once at
                                                          # watch start
                                                          # (monitor/slow_group_weights.py)
    joint_scaling: list = field(default_factory=list)  # [(step, "row"/"batch", "min-max"/
                                                          # "mean-std", rows, share holding
                                                          # over inputs and targets together,
                                                          # over inputs alone, over targets
                                                          # alone, batch key)] of the first
                                                          # training batches, read at findings
                                                          # (monitor/joint_scaling.py)
    validation_draws: list = field(default_factory=list)  # [(step, 2-D float64 array)]: the
                                                          # first rows of the first input of
                                                          # the first two validation passes
                                                          # (monitor/validation_draws.py)
    validation_sets: list = field(default_factory=list)  # [(step, rows, sum, sum of squares)]
                                                          # of each validation pass's inputs,
                                                          # the first 64 passes
                                                          # (monitor/validation_sets.py)
    signed_targets: list = field(default_factory=list)  # [(step, loss name, values, +1s,
                                                          # -1s, 0s)] of the targets of the
                                                          # first +1/-1-target loss calls,
                                                          # read at findings
                                                          # (monitor/signed_targets.py)
    token_id_shares: list = field(default_factory=list)  # [(step, embedding, commonest
                                                          # id, its share of the ids, share
                                                          # of it between other tokens, ids
                                                          # counted)] of the first training
                                                          # lookups (monitor/token_id_shares.py)
    category_id_shares: list = field(default_factory=list)  # [(step, embedding, commonest
                                                          # id, its share, ids counted, table
                                                          # rows)] of the first training
                                                          # lookups of one id per example
                                                          # (monitor/token_id_shares.py)
    reversed_concatenations: list = field(default_factory=list)  # [(step, recurrent layer
                                                          # whose output is in reversed time
                                                          # order, layer in forward order)]
                                                          # concatenated step by step, first
                                                          # steps (monitor/reversed_steps.py)
    straight_through_cancellations: list = field(default_factory=list)  # [(step, sums in the
                                                          # model's forward of the form
                                                          # x + (q - x), no detach)] on the
                                                          # first recorded steps (monitor/
                                                          # straight_through_cancellations.py)
    aliased_state_loads: list = field(default_factory=list)  # [(step, tensors given as the
                                                          # model's own storage, floating-
                                                          # point tensors compared)] of each
                                                          # model.load_state_dict while
                                                          # watching (monitor/aliased_loads.py)
    resumed_optimizers: list = field(default_factory=list)  # [(step resumed at, optimizer
                                                          # class, held state before its first
                                                          # step, holds state after it,
                                                          # [[scheduler class, steps it had
                                                          # counted]])] after
                                                          # mon.load_state_dict
                                                          # (monitor/resumed_optimizers.py)
    discarded_losses: list = field(default_factory=list)  # [(step, forward passes, training
                                                          # loss calls, of which backward
                                                          # reached, elements output, elements
                                                          # the calls read)], first recorded
                                                          # steps (monitor/discarded_losses.py)
    gradients_after_step: list = field(default_factory=list)  # [(step, gradient tensors
                                                          # followed, smallest and largest
                                                          # ratio of their norm when watch's
                                                          # step() closed a recorded step to
                                                          # right after optimizer.step())]
                                                          # (monitor/gradients_after_step.py)
    propagation_matrices: list = field(default_factory=list)  # [(step, nodes, 0/1 entries,
                                                          # median row sum, largest row sum,
                                                          # triangular, empty-row share, no
                                                          # self-loops, symmetric)] of the
                                                          # square data matrices multiplying
                                                          # features in the model's forward,
                                                          # first steps
                                                          # (monitor/propagation_matrices.py)
    null_condition_lookups: list = field(default_factory=list)   # [(layer, rows, lookups,
                                                          # ids read, at the last row,
                                                          # distinct)] of 1-D id lookups
                                                          # (monitor/null_condition_lookups.py)
    narrow_lookups: list = field(default_factory=list)    # [(layer, rows, width, step,
                                                          # [(highest id + 1, distinct,
                                                          # read)] per lookup)] of steps
                                                          # looking a table up 2+ times
                                                          # (monitor/narrow_lookups.py)
    loss_hinges: list = field(default_factory=list)       # [(step, hinges, normalised)]: relu
                                                          # / clamp nodes in the loss and
                                                          # whether it divides by a norm,
                                                          # first steps
                                                          # (monitor/loss_hinges.py)
    trained_loss_nodes: list = field(default_factory=list)  # [(step, any loss function's or
                                                          # log-likelihood's node in the
                                                          # stepped loss's graph)], first
                                                          # steps (monitor/trained_loss_
                                                          # nodes.py, batch 72)
    maximised_probabilities: list = field(default_factory=list)  # [(step, "sigmoid" or
                                                          # "softmax", reduction, sign)]: the
                                                          # loss a signed mean of
                                                          # probabilities, first steps
                                                          # (monitor/maximised_probabilities.py)
    squashed_batch_sums: list = field(default_factory=list)  # [(step, squashing operation,
                                                          # reduction, reduced shape)]: a
                                                          # sigmoid-like function of the
                                                          # whole batch's sum in the loss,
                                                          # first steps
                                                          # (monitor/squashed_batch_sums.py)
    parameter_penalties: list = field(default_factory=list)  # [(step, watched tensors a
                                                          # hand-written L2 term of the loss
                                                          # squares, of which in a param group
                                                          # with weight_decay > 0, the largest
                                                          # such decay, decoupled)] on the
                                                          # first recorded steps
                                                          # (monitor/parameter_penalties.py)
    summed_errors: list = field(default_factory=list)  # [(step, loss, largest |output|,
                                                        # largest |target|, the step's first
                                                        # loss)]: squared errors a recorded
                                                        # step called after its first loss
                                                        # call (monitor/loss_capture.py)
    penalty_decays: list = field(default_factory=list)  # [(step, watched tensors a squared
                                                          # penalty scales, the largest 2 x
                                                          # its coefficient: the weight decay
                                                          # it is under SGD)] on the first
                                                          # recorded steps
                                                          # (monitor/parameter_penalties.py)
    other_optimizer_carries: list = field(default_factory=list)  # [(step, "carried" or
                                                          # "cleared", parameters it holds)]:
                                                          # whether an optimizer other than
                                                          # the watched one cleared .grad
                                                          # between two of its steps (monitor/
                                                          # other_optimizer_clearing.py)
    other_turn_gradients: list = field(default_factory=list)  # [(step, "carried" or
                                                          # "cleared", the backward reached
                                                          # the other optimizer's parameters
                                                          # too)]: whether a gradient
                                                          # the watched network got during
                                                          # another optimizer's turn was still
                                                          # in .grad at its own step, first
                                                          # steps (monitor/other_turn_
                                                          # gradients.py)
    outer_differences: list = field(default_factory=list)  # [(step, [table shape], [graph
                                                          # operand shape])]: an error term
                                                          # subtracting (N,) targets from an
                                                          # (N, 1) output into an (N, N)
                                                          # table, first recorded steps
                                                          # (monitor/outer_differences.py)
    reparameterisations: list = field(default_factory=list)  # [(step, noise draws
                                                          # z = mu + eps * scale reaching the
                                                          # loss, of which scale is used
                                                          # nowhere else, of which exp(s) is
                                                          # drawn as std and read as a
                                                          # variance)], first recorded steps
                                                          # (monitor/reparameterisations.py)
    whole_batch_overlaps: list = field(default_factory=list)  # [(step, [reduced shape])]: a
                                                          # soft Dice / IoU whose sums run
                                                          # over the whole batch, first
                                                          # recorded steps
                                                          # (monitor/whole_batch_overlaps.py)
    ctc_blank_targets: list = field(default_factory=list)  # [(step, blank, labels read,
                                                          # labels equal to the blank)] of the
                                                          # first CTC loss calls
                                                          # (monitor/ctc_blank_targets.py)
    ctc_alignments: list = field(default_factory=list)  # [(step, classes, zero_infinity,
                                                          # lines, lines with too few
                                                          # frames, labels, labels beyond
                                                          # the classes)] of the first CTC
                                                          # loss calls (batch 89,
                                                          # monitor/ctc_alignments.py)
    visible_targets: list = field(default_factory=list)  # [(step, positions the loss reads,
                                                          # read where the input is the
                                                          # label, corruption id, read
                                                          # positions holding it, read
                                                          # positions where they differ)]
                                                          # (monitor/visible_targets.py)
    order_blind_outputs: list = field(default_factory=list)  # [(step, "pooled" | "per
                                                          # position", length, relative
                                                          # change)]: shuffled tokens left
                                                          # the output as it was
                                                          # (monitor/order_blind_attention.py)
    cross_document_reads: list = field(default_factory=list)  # [(step, packed rows, rows
                                                          # whose later document moved,
                                                          # relative change)]
                                                          # (monitor/document_boundaries.py)
    one_unit_softmaxes: list = field(default_factory=list)  # [(step, function, output shape,
                                                          # axis)]: a softmax over an axis of
                                                          # size one, first recorded steps
                                                          # (monitor/one_unit_softmaxes.py)
    multiplied_skips: list = field(default_factory=list)  # [(step, products in the
                                                          # forward joining a learned
                                                          # branch to its own input,
                                                          # their shapes)], first
                                                          # recorded steps
                                                          # (monitor/multiplied_skips.py)
    head_softmaxes: list = field(default_factory=list)  # [(step, [(softmax group,
                                                          # numbers the product applying
                                                          # the weights contracts, the
                                                          # scores' shape before the
                                                          # merge)])], first recorded
                                                          # steps (monitor/head_softmaxes.py)
    patch_grid_reshapes: list = field(default_factory=list)  # [(step, input shape,
                                                          # output shape, patch side)]:
                                                          # reshapes cutting an image
                                                          # into patch tokens or back in
                                                          # one step, first recorded steps
                                                          # (monitor/patch_grid_reshapes.py)
    transposing_reshapes: list = field(default_factory=list)  # [(step, input shape, output
                                                          # shape, axis order)]: a view that
                                                          # only reordered axes explain
                                                          # (monitor/transposing_reshapes.py)
    target_column_scales: list = field(default_factory=list)  # [(step, loss, rows, [std of
                                                          # each target column])] of the first
                                                          # multi-output regression loss calls
                                                          # (monitor/target_column_scales.py)
    box_corner_orders: list = field(default_factory=list)  # [(step, rows, rows with column 2
                                                          # below column 0, rows with column 3
                                                          # below column 1, [min of each
                                                          # column], [max of each column])] of
                                                          # the same calls' 4-column targets
                                                          # (monitor/target_column_scales.py)
    near_zero_divisors: list = field(default_factory=list)  # [(step, elements, smallest and
                                                          # median |divisor|)] of a loss's
                                                          # per-element constant divisors
                                                          # (monitor/near_zero_divisors.py)
    target_value_matches: list = field(default_factory=list)  # [(step, rows, [row shape],
                                                          # column, rows where it equals the
                                                          # target)], first training batches
                                                          # (monitor/target_values_in_features.py)
    diffusion_noise_levels: list = field(default_factory=list)  # [(step, [noise coefficient
                                                          # b], [log signal power])] per
                                                          # sample, first training batches
                                                          # (monitor/diffusion_noise_levels.py)
    conflicting_label_rows: list = field(default_factory=list)  # [(step, rows, distinct
                                                          # input rows, rows whose exact
                                                          # twin has another target)],
                                                          # first training batches
                                                          # (monitor/identical_input_rows.py)
    class_only_padding: list = field(default_factory=list)  # [(step, rows, padded rows,
                                                          # [labels of padded rows], [labels
                                                          # of unpadded rows])], first
                                                          # training batches (batch 65,
                                                          # monitor/class_only_padding.py)
    position_losses: list = field(default_factory=list)  # [(step, classes, [loss of each
                                                          # position], [labels' entropy at
                                                          # each position])], per-position
                                                          # class-index losses on recorded
                                                          # steps (batch 65,
                                                          # monitor/position_losses.py)
    validation_row_matches: list = field(default_factory=list)  # [(evaluation batch,
                                                          # rows compared, rows equal to a
                                                          # kept training row, distinct
                                                          # training rows, training rows
                                                          # kept, values per row)], read at
                                                          # findings (batch 46,
                                                          # monitor/validation_rows.py)
    split_sizes: list = field(default_factory=list)  # [(distinct training rows, training
                                                   # rows kept, distinct held-out rows,
                                                   # evaluation rows kept)], one row, read at
                                                   # findings (batch 268,
                                                   # monitor/validation_rows.py)
    row_standardised_inputs: list = field(default_factory=list)  # [(step, rows,
                                                          # features, rows with mean 0 and
                                                          # std 1 over the features, the
                                                          # between-column share of the
                                                          # variance)] of the first training
                                                          # tables, read at findings (batch
                                                          # 46, monitor/row_standardised_inputs.py)
    constant_decoder_inputs: list = field(default_factory=list)  # [(step, float input
                                                          # index, shape, its one value, the
                                                          # output's spread over its positions)]
                                                          # (batch 49,
                                                          # monitor/constant_decoder_inputs.py)
    in_place_skips: list = field(default_factory=list)  # [(step, block, block type,
                                                          # activation)]: a block's input
                                                          # rewritten in place, then added
                                                          # (monitor/in_place_skip_inputs.py)
    shared_norm_sites: list = field(default_factory=list)  # [(step, norm, calls in one
                                                          # forward, mean gap, spread ratio
                                                          # of their inputs)] (batch 43,
                                                          # monitor/shared_norm_sites.py)
    pooled_log_probs: list = field(default_factory=list)  # [(step, log-probs pooled,
                                                          # entries weighted)] of a
                                                          # mean of log-probs times a
                                                          # vector, first recorded steps
                                                          # (monitor/pooled_log_probs.py)
    ppo_ratios: list = field(default_factory=list)  # [(step, largest |ratio - 1|,
                                                          # entries)] of PPO's ratios,
                                                          # first recorded steps
                                                          # (monitor/ppo_ratios.py)
    late_gradients: list = field(default_factory=list)  # [(step, optimizer parameters
                                                          # without a gradient at its step,
                                                          # of which holding one when the
                                                          # recorded step closed, [their
                                                          # names])], first recorded steps
                                                          # (monitor/late_gradients.py)
    uncleared_gradients: list = field(default_factory=list)  # [(step, name of a parameter
                                                          # the optimizer holds outside the
                                                          # model, |.grad - delivered| /
                                                          # |delivered| at its step)]
                                                          # (monitor/late_gradients.py)
    rewritten_weights: list = field(default_factory=list)  # [(step after which the weights
                                                          # were written outside the optimizer,
                                                          # the jump in median updates, the
                                                          # share of the distance travelled
                                                          # since the last write left, the
                                                          # written entries' size against
                                                          # the first step's)], first
                                                          # optimizer steps
                                                          # (monitor/rewritten_weights.py)
    self_references: list = field(default_factory=list)  # [(step, differences of the
                                                          # loss between a graph and a constant
                                                          # found exactly 0, differences
                                                          # compared)], first recorded steps
                                                          # (monitor/self_references.py)
    repeated_output_calls: list = field(default_factory=list)  # [(step, [(loss, loss, layer
                                                          # node type)])]: regression terms
                                                          # whose predictions are one layer
                                                          # called twice on one input, first
                                                          # recorded steps (real-bug batch
                                                          # 269, monitor/repeated_output_calls.py)
    swapped_loss_arguments: list = field(default_factory=list)  # [(step, name of a binary
                                                          # cross-entropy whose prediction
                                                          # has no graph and whose target
                                                          # has one)], first recorded steps
                                                          # (monitor/swapped_loss_arguments.py)
    squashed_score_terms: list = field(default_factory=list)  # [(step, addends of the
                                                          # loss that are a mean of a
                                                          # sigmoid of a layer's score)],
                                                          # first recorded steps
                                                          # (monitor/squashed_scores.py)
    soft_target_agreement: list = field(default_factory=list)  # [(step, share of labelled
                                                          # rows whose KL target's top class
                                                          # is the label, classes, rows)]
                                                          # (monitor/soft_target_labels.py)
    foreign_norm_statistics: list = field(default_factory=list)  # [(layer type, features,
                                                          # batches tracked, statistics still
                                                          # at their initial values)] of
                                                          # eval-mode batch norms outside the
                                                          # model run in a training step
                                                          # (monitor/foreign_networks.py)
    foreign_train_dropouts: list = field(default_factory=list)  # [(dropout type, p, parameter
                                                          # tensors of the other network read,
                                                          # of which changed during the run)]
                                                          # dropouts outside the model left in
                                                          # training mode, in a network
                                                          # whose weights are read (monitor/foreign_networks.py)
    outside_parameters: list = field(default_factory=list)  # [(module type, shape, held by
                                                          # an optimizer that stepped, changed
                                                          # during the run)] of the parameters
                                                          # outside the model run in a training
                                                          # step that hold a gradient at close
                                                          # (monitor/foreign_networks.py)
    duplicated_arguments: list = field(default_factory=list)  # [(step, id arguments compared
                                                          # in pairs, [[i, j], ...] equal ones)]
                                                          # of the first training forwards
                                                          # (batches 314-315, monitor/
                                                          # first_training_inputs.py)
    duplicated_input_columns: list = field(default_factory=list)  # [(step, rows, features,
                                                          # varied columns, [[column, its exact
                                                          # copies...]])] of the first training
                                                          # inputs, read at findings (batch 59,
                                                          # monitor/duplicated_input_columns.py)
    input_ranges: list = field(default_factory=list)  # [(kind "training" or "validation",
                                                          # step, forwards read, lowest input,
                                                          # highest input)] (batch 59,
                                                          # monitor/input_ranges.py)
    validation_teacher_inputs: list = field(default_factory=list)  # [(step, argument,
                                                          # shape, error at the same positions,
                                                          # one step on, earlier outputs
                                                          # unchanged, the changed position's
                                                          # moved, later moved)] of one probed
                                                          # validation forward (batch 59,
                                                          # monitor/teacher_forced_validation.py)
    derivative_calls: list = field(default_factory=list)  # [(step, order, "inputs",
                                                          # "parameters" or "computed" (a
                                                          # computed tensor's constant
                                                          # derivative, batch 274),
                                                          # create_graph, result
                                                          # all zero, repeats a call of the step,
                                                          # result rank)] of torch.autograd.grad
                                                          # (batch 56, monitor/derivative_calls.py)
    derivative_reach: list = field(default_factory=list)  # [(step, results of create_graph
                                                          # calls, results a later pass
                                                          # reached)] per noted step (batch
                                                          # 336, monitor/derivative_calls.py)
    per_position_gradient_norms: list = field(default_factory=list)  # [(step, gradient rank,
                                                          # axes reduced, norms per sample)] of
                                                          # norms over part of an input
                                                          # gradient's axes in the loss (batch 56)

    single_value_norms: list = field(default_factory=list)  # [(step, "GroupNorm" or
                                                          # "LayerNorm", [layer names], groups,
                                                          # channels, values per group)] of
                                                          # norms whose groups hold one value
                                                          # (batch 60, monitor/single_value_norms.py)
    dropout_outputs: list = field(default_factory=list)  # [(step, dropout layer, p)] of
                                                          # training steps whose model output
                                                          # IS a dropout's output (batch 60,
                                                          # monitor/dropout_outputs.py)
    unchanged_running_buffers: list = field(default_factory=list)  # [(layer, [buffer names],
                                                          # training-mode calls seen, changed)]
                                                          # of layers with running statistics
                                                          # of their own making (batch 60,
                                                          # monitor/running_buffers.py)
    soft_target_padding: list = field(default_factory=list)  # [(step, loss, reduction,
                                                          # input shape, most frequent row
                                                          # argmax, its share, its share in
                                                          # runs, the others' share in runs)]
                                                          # of soft-target losses (batch 60,
                                                          # monitor/soft_target_padding.py)
    identical_units: list = field(default_factory=list)  # [(name, shape, largest |w| at
                                                          # start, now, largest row difference
                                                          # now, largest change of the first
                                                          # row)] of the weights whose rows
                                                          # started equal (batch 80,
                                                          # monitor/identical_units.py)
    turned_off_parameters: list = field(default_factory=list)  # [(name, shape)] trainable
                                                          # at watch start, requires_grad
                                                          # False at findings (batch 81,
                                                          # monitor/turned_off_parameters.py)
    output_row_norms: list = field(default_factory=list)  # [(name, [norm of each row])] of
                                                          # the last trainable weight matrix
                                                          # at watch start (batch 156,
                                                          # start_parameters.py)
    zero_start_parameters: list = field(default_factory=list)  # [(name, shape)] trainable,
                                                          # parameters all zero at watch start
                                                          # (batch 82, start_parameters.py)
    one_signed_start_parameters: list = field(default_factory=list)  # [(name, shape)]
                                                          # trainable weight matrices whose
                                                          # values all had one sign, not all
                                                          # equal, at watch start (batch 247,
                                                          # start_parameters.py)
    start_parameter_values: list = field(default_factory=list)  # [(name, shape, trainable,
                                                          # non-finite elements, largest finite
                                                          # |value|)] of the parameters odd at
                                                          # watch start (batch 64,
                                                          # monitor/start_parameters.py)
    in_place_inputs: list = field(default_factory=list)  # [(step, shape, view of a larger
                                                          # tensor, its elements, storage fed
                                                          # on an earlier watched step)] of
                                                          # forwards writing into their input
                                                          # (batch 64, monitor/in_place_inputs.py)
    pretrained_norm_inputs: list = field(default_factory=list)  # [(layer, order, channels,
                                                          # training, median mean shift in
                                                          # running stds, median log10 variance
                                                          # ratio, the same two with the input
                                                          # channels reversed or None)] of
                                                          # pretrained batch norms on the first
                                                          # recorded step (batch 73,
                                                          # monitor/pretrained_norm_inputs.py)
    loss_weights: list = field(default_factory=list)  # [(step, largest summed weight one loss
                                                          # module's calls carried into that
                                                          # optimizer step)] on the first
                                                          # recorded steps (batch 74,
                                                          # monitor/loss_weights.py)
    category_code_columns: list = field(default_factory=list)  # [(column, codes, rows,
                                                          # lowest, highest, between share,
                                                          # unordered share, target variance)]
                                                          # of first training inputs' code
                                                          # columns (batch 63,
                                                          # monitor/categorical_inputs.py)
    embedding_field_ranges: list = field(default_factory=list)  # [(layer, fields, rows,
                                                          # boundaries, touching, overlapping,
                                                          # [(field, shared id)])] of (rows,
                                                          # fields) id tables (batch 63)
    rounded_input_columns: list = field(default_factory=list)  # [(step, dtype, rows,
                                                          # varied columns, rounded columns,
                                                          # column, mean, std, dtype spacing)]
                                                          # of first training inputs (batch 61,
                                                          # monitor/input_precision.py)
    wrapped_input_levels: list = field(default_factory=list)  # [(step, rows, levels spanned,
                                                          # best cyclic shift, roughness,
                                                          # roughness shifted)] of first
                                                          # training inputs (batch 61,
                                                          # monitor/wrapped_inputs.py)
    validation_target_kinds: list = field(default_factory=list)  # [(kind "training" or
                                                          # "validation", step, loss, dtype,
                                                          # values read, whole-number share)]
                                                          # (batch 61,
                                                          # monitor/validation_targets.py)
    frozen_table_probes: list = field(default_factory=list)  # [(layer, samples, classes,
                                                          # accuracy at shift 0, best other
                                                          # shift, its accuracy, ids' accuracy,
                                                          # majority share)] of frozen
                                                          # embeddings (batch 63)
    scattered_messages: list = field(default_factory=list)  # [(step, rows, messages,
                                                          # highest sender + 1, highest
                                                          # receiver + 1)] of the index
                                                          # gathers and scatters of a graph
                                                          # network's forward, first steps
                                                          # (batch 66,
                                                          # monitor/scattered_messages.py)
    feature_axis_readouts: list = field(default_factory=list)  # [(step, "mean" or "sum",
                                                          # reduced shape)]: a layer reading a
                                                          # reduction over a layer's features,
                                                          # first steps (batch 66,
                                                          # monitor/feature_axis_readouts.py)
    tiny_norm_batches: list = field(default_factory=list)  # [(step, layer, samples, values
                                                          # per channel)]: batch-norm batches
                                                          # of 1-2 samples on any step
                                                          # (monitor/tiny_norm_batches.py)
    mixup_partner_rows: list = field(default_factory=list)  # [(first step, mixed rows,
                                                          # classes, rows whose best class-
                                                          # prototype pair holds one of the
                                                          # target's two classes, rows it
                                                          # holds both)] (batch 76,
                                                          # monitor/mixup_partners.py)
    augmented_target_rows: list = field(default_factory=list)  # [(step, samples, two- or
                                                          # three-valued targets, of those
                                                          # exactly {0, 1}, distinct upper
                                                          # values, their correlation with
                                                          # the image under them)] (batch
                                                          # 76, monitor/augmented_targets.py)
    mask_placement_rows: list = field(default_factory=list)  # [(first step, samples read,
                                                          # samples whose image edges fit
                                                          # their mask, samples a flipped or
                                                          # turned mask fits clearly better,
                                                          # that placement, inputs that are
                                                          # their mask, of those moved)]
                                                          # (monitor/mask_placement.py)
    target_offset_rows: list = field(default_factory=list)  # [(first step, samples read,
                                                          # samples whose input edges fit
                                                          # their target at some shift,
                                                          # samples another shift fits
                                                          # clearly better, distinct shifts
                                                          # among those, the commonest as
                                                          # "rows,columns", the samples it
                                                          # moved, samples a continuous
                                                          # target fits clearly better
                                                          # transposed)] (batches 360, 115,
                                                          # monitor/target_offsets.py)
    fragile_operations: list = field(default_factory=list)  # [(step, "forward" or
                                                          # "backward", "x / std", source)]:
                                                          # divisions by a bare spread,
                                                          # fractional powers of a
                                                          # probability, logs of summed exps
                                                          # (batch 92,
                                                          # monitor/fragile_operations.py)
    unguarded_logs: list = field(default_factory=list)  # [(step, "log(1 - sigmoid)",
                                                          # source)]: logs of a softmax or
                                                          # sigmoid nothing keeps from 0 in
                                                          # its dtype (batch 75,
                                                          # monitor/unguarded_logs.py)
    picked_probability_losses: list = field(default_factory=list)  # [(step, "softmax" or
                                                          # "sigmoid", reduction, sign,
                                                          # classes, values reduced)]: a loss
                                                          # that reduces each row's picked
                                                          # probability (batch 75,
                                                          # monitor/loss_signs.py)
    class_mean_losses: list = field(default_factory=list)  # [(step, rows, classes)]: a loss
                                                          # that is the mean of a (rows,
                                                          # classes) table masked one-hot
                                                          # (batch 75, monitor/class_means.py)
    empty_overlap_targets: list = field(default_factory=list)  # [(step, rows, empty rows)]:
                                                          # an unsmoothed overlap ratio's mask
                                                          # (batch 75, monitor/empty_overlaps.py)
    random_projections: list = field(default_factory=list)  # [(module class, file, line,
                                                          # call)] of matrix products by a
                                                          # matrix drawn in forward, read
                                                          # once at watch start (batch 113,
                                                          # monitor/random_projections.py)
    softmax_read_as_logits: list = field(default_factory=list)  # [(step,)]: a policy's
                                                          # log-probability normalised from a
                                                          # softmax's output (monitor/policy_
                                                          # gradient_terms.py)
    channel_scales: list = field(default_factory=list)   # [(step, axis, [each input channel's
                                                         # standard deviation], [its share of
                                                         # non-zero values])] of the first training
                                                         # batches (monitor/channel_scales.py)
    restored_checkpoints: list = field(default_factory=list)  # [(kind "validation" or
                                                          # "load", step, [each weight
                                                          # tensor's sum])] (monitor/
                                                          # restored_checkpoints.py)
    ranked_losses: list = field(default_factory=list)   # [(step,)] of steps whose rows were
                                                        # chosen by ranking per-sample
                                                        # losses (monitor/ranked_losses.py)
    head_rows: list = field(default_factory=list)   # [(step, output layer's weight, rows,
                                                    # [rows with an exactly zero gradient],
                                                    # model outputs cut from the layer)] on
                                                    # the first records (monitor/
                                                    # head_rows.py)
    handwritten_errors: list = field(default_factory=list)  # [(step, index, "squared" or
                                                          # "absolute", prediction magnitude,
                                                          # target magnitude)] of regression
                                                          # errors written by hand (monitor/
                                                          # handwritten_errors.py)
    stopped_rates: list = field(default_factory=list)    # [(first step, highest rate before)]
                                                          # of the stretch, still running, of
                                                          # optimizer steps at a rate below
                                                          # 1e-6 of the run's highest
                                                          # (monitor/optimizer_steps.py)
    negative_rates: list = field(default_factory=list)    # [(step, param group, rate)] of the
                                                          # first optimizer step taken with a
                                                          # rate below zero (monitor/
                                                          # optimizer_steps.py)
    closure_steps: list = field(default_factory=list)     # [(step,)] of the first optimizer
                                                          # steps given a closure (L-BFGS:
                                                          # several backward passes inside
                                                          # one step; monitor/optimizer_steps.py)
    forwards_after_training: list = field(default_factory=list)  # [(step, forwards, batch
                                                          # norm training, dropout training,
                                                          # eval after train, longest repeat
                                                          # with dropout off, cumulative norm,
                                                          # earlier train-mode steps, earlier
                                                          # longest repeat, longest repeat
                                                          # with dropout on, earlier steps
                                                          # with dropout on)]: the no-gradient
                                                          # forwards after the last step
                                                          # (monitor/forwards_after_training.py)
    placeholder_points: list = field(default_factory=list)  # [(step, loss, points read,
                                                          # top point's count, second's, at
                                                          # the edge, matched by the output,
                                                          # point)] of a point regression's
                                                          # targets (batch 115, monitor/
                                                          # placeholder_points.py)
    soft_target_gradients: list = field(default_factory=list)  # [(step, watched parameter
                                                          # tensors a soft target's graph
                                                          # reaches, other ones, of which the
                                                          # watched optimizer holds, mirrored
                                                          # both ways)], first
                                                          # steps (batch 85, monitor/soft_
                                                          # target_gradients.py)
    batch_totals_in_terms: list = field(default_factory=list)  # [(step, summed shape,
                                                          # outer reduction, per-sample
                                                          # shape)]: a full sum of a batch
                                                          # tensor inside a per-sample loss
                                                          # term, first steps (batch 83,
                                                          # monitor/batch_totals.py)
    self_masked_targets: list = field(default_factory=list)  # [(step, elements)] of a
                                                          # per-element BCE multiplied only
                                                          # by its own targets, first steps
                                                          # (batch 85, monitor/self_masked_
                                                          # targets.py)
    attention_scales: list = field(default_factory=list)  # [(site, step, head_dim, [constant
                                                          # factors of its logits], kernel)]
                                                          # (batch 79, monitor/attention_scales.py)
    uniform_attention: list = field(default_factory=list)  # [(site, step, rows seeing 2+ keys,
                                                          # those exactly uniform)] (batch 101,
                                                          # monitor/uniform_attention.py)
    weights_on_grid: list = field(default_factory=list)  # [(optimizer steps followed, share
                                                          # written between steps, share of
                                                          # pre-step rows on a grid, of post-
                                                          # step rows, median share of an update
                                                          # kept)] (batch 106, monitor/
                                                          # rewritten_weights.py)
    recomputed_segments: list = field(default_factory=list)  # [(step, [modules run again in
                                                          # backward], checked, relative
                                                          # error of the gradient, gradient
                                                          # finite, why not checked)] (batch
                                                          # 88, monitor/recomputed_segments.py)
    input_gradient_passes: list = field(default_factory=list)  # [(step, backward passes right
                                                          # after a forward on an input requiring
                                                          # grad before the last training one,
                                                          # all backward passes into .grad)]
                                                          # of recorded steps with such forwards
                                                          # (batch 87, monitor/hooks.py)
    averaged_copies: list = field(default_factory=list)  # [(local name, copy's parameter
                                                          # dtype, model's, values compared,
                                                          # copy's changed, model's changed,
                                                          # copy's equal to the model's at
                                                          # close, buffers compared, copy's buffers
                                                          # stale)] of copies of the model in
                                                          # the callers' scope (an EMA, SWA;
                                                          # batch 96, monitor/averaged_copies.py)
    unloaded_checkpoints: list = field(default_factory=list)  # [(local name, key prefix,
                                                          # weights matched, weight matrices,
                                                          # median relative distance at watch
                                                          # start, at close or -1.0)] of state
                                                          # dicts of the model in the callers'
                                                          # scope at watch start (batch 90,
                                                          # monitor/unloaded_checkpoints.py)
    scoped_loaders: list = field(default_factory=list)   # [(local name, batch_size (-1:
                                                          # None), num_workers, iterable (0/1),
                                                          # user's collate (0/1), dataset
                                                          # length (-1: none))] of the
                                                          # DataLoaders in scope at watch start
    stored_data_scales: list = field(default_factory=list)   # [(step, loader's local name,
                                                          # attribute, rms)] of the float arrays
                                                          # their datasets keep, at start, on a
                                                          # doubling ruler and at close
    loader_batch_forwards: list = field(default_factory=list)   # [(step, training forwards,
                                                          # first forward's leading size)] on
                                                          # recorded steps (batch 95,
                                                          # monitor/scoped_loaders.py)
    carried_state: list = field(default_factory=list)    # [(parameter, initialiser it looks
                                                          # like at watch start or "", cosine
                                                          # of the optimizer's carried buffer
                                                          # and the first gradient)] (batch
                                                          # 100, monitor/carried_state.py)
    update_fits: list = field(default_factory=list)      # [(parameter, steps fitted, share of
                                                          # steps whose update is linear in
                                                          # (grad, weight), median a, median b,
                                                          # share b > 0, pairs fitted, share
                                                          # linear in (previous update, grad),
                                                          # median c, steps compared for
                                                          # direction, share climbing the
                                                          # gradient)] (batch 99; the last
                                                          # two batch 322,
                                                          # monitor/update_samples.py)
    pruned_weight_regrowth: list = field(default_factory=list)   # [(step pruned, parameter,
                                                          # zero share the step before, when
                                                          # pruned, one step later, share of the
                                                          # pruned entries non-zero one step
                                                          # later)] (batch 94,
                                                          # monitor/pruned_weights.py)
    pruned_layers: list = field(default_factory=list)    # [(module, parameter, mask entries,
                                                          # share masked)] of torch.nn.utils.prune
                                                          # masks at close (batch 94)
    soft_cross_entropies: list = field(default_factory=list)  # [(step, the targets' entropy
                                                          # sum, the cross-entropy sum, the
                                                          # smallest target)] of soft cross-
                                                          # entropies written by hand (batch
                                                          # 192, monitor/soft_cross_entropies.py)
    sample_normalised_inputs: list = field(default_factory=list)  # [(step, samples, axis,
                                                          # axis length, slices, centred
                                                          # slices, unit-std slices)] of the
                                                          # first training batches, read at
                                                          # findings (batch 172, monitor/
                                                          # sample_normalised_inputs.py)
    backward_passes: list = field(default_factory=list)  # [(step, backward passes that
                                                          # reached the first weight's .grad)]
                                                          # of the first recorded steps
                                                          # (batch 330, GRADIENTS_DISCARDED)
    norms_at_findings: list = field(default_factory=list)  # [(parameter index, norm of its
                                                          # weights when findings were last
                                                          # asked)]: a tensor that got no
                                                          # gradient on any judged record but
                                                          # moved since was trained between
                                                          # them (batch 325, NO_GRADIENT)
    window_borders: list = field(default_factory=list)  # [(step, time axis of the ids,
                                                          # streams, [first input id of each
                                                          # kept stream], [last target id of
                                                          # each], [(recurrent layer, state
                                                          # kind it started from)])] of the
                                                          # first recorded steps of a language
                                                          # model (batches 170/283, monitor/
                                                          # window_borders.py)
    posterior_draws: list = field(default_factory=list)  # [(step, [[noise mean, noise std,
                                                          # mean and scale one output (0/1),
                                                          # std floored at 1 (0/1)] of each
                                                          # draw z = mu + eps * std reaching
                                                          # the loss whose scale a KL reads],
                                                          # 1 when the loss has a Gaussian KL
                                                          # of two encoder outputs and reads
                                                          # no noise draw at all)]
                                                          # (batch 91, monitor/posterior_draws.py)
    mask_indexes: list = field(default_factory=list)  # [(step, "gather" or "__getitem__",
                                                      # size of the dimension indexed,
                                                      # source)]: 0/1 integer masks used
                                                      # as positions on the origin watch's
                                                      # steps (batch 351,
                                                      # monitor/mask_indexes.py)

    def to_dict(self):
        from dataclasses import asdict
        return {"loss_calls": [asdict(c) for c in self.loss_calls],
                "warnings": [asdict(w) for w in self.warnings],
                "unregistered": [asdict(u) for u in self.unregistered],
                "frozen": [asdict(f) for f in self.frozen],
                "norm_batches": [asdict(b) for b in self.norm_batches],
                "norm_settings": [asdict(n) for n in self.norm_settings],
                "optimizer_settings": [asdict(o) for o in self.optimizer_settings],
                "dropout_settings": [asdict(d) for d in self.dropout_settings],
                "padding_lookups": [asdict(p) for p in self.padding_lookups],
                "schedulers": [asdict(s) for s in self.schedulers],
                "loss_terms": [asdict(t) for t in self.loss_terms],
                "functional_dropouts": [asdict(d) for d in self.functional_dropouts],
                "layer_layouts": [asdict(c) for c in self.layer_layouts],
                "graph_nodes": [list(g) for g in self.graph_nodes],
                "batch_rows": [list(b) for b in self.batch_rows],
                **{name: list(getattr(self, name)) for name in STEP_LISTS},
                "repeated_total": self.repeated_total,
                "multi_step_total": self.multi_step_total,
                "train_backward_total": self.train_backward_total,
                "unstepped_gradients": self.unstepped_gradients,
                **{name: [list(row) for row in getattr(self, name)] for name in ROW_LISTS},
                "window_overlap": self.window_overlap,
                "parameter_dtypes": dict(self.parameter_dtypes),
                "random_rnn_states": [dict(call) for call in self.random_rnn_states],
                "validation_draws": [[step, rows.tolist()] for step, rows in
                                     self.validation_draws]}

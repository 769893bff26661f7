"""Rules: a recorded run (``nndebug.records``) in, findings out. NumPy only, no framework.

Read in this order:
  graph.py        how a rule is declared (``@rule``) and how the run order and the cause
                  ranking are derived from the declarations
  context.py      the shared view of the run every rule reads (``ctx``)
  curve.py        what the loss curve says (diverging, at chance, flat, ``learning_poor``)
  one file per family, in cause order: inputs.py, setup.py, learning_rate.py,
                  blow_ups.py, signal_flow.py, loss_curve.py
  causes.py       symptoms linked to their causes, causes first

How to add a rule
-----------------
1. Write a new file here (or add to a family file) with decorated functions::

       from ..findings import Finding
       from .graph import rule

       MY_THRESHOLD = 0.5     # [measured] what it is, and where the value comes from

       @rule(produces="MY_CODE", reads={"CONSTANT_INPUTS"}, explains={"LOSS_PLATEAU"})
       def my_rule(ctx):
           if "CONSTANT_INPUTS" in ctx.found:
               return None
           ...
           return Finding(code="MY_CODE", severity="warning", where=..., step=...,
                          message=..., evidence={...}, fix=...)

   ``produces``: every code it may return; ``reads``: every code it looks up in
   ``ctx.found`` (any other look-up raises); ``explains``: the symptoms it explains.
   A rule gets ``ctx`` (``context.Context``) and returns a Finding, a list, or None. It must
   not crash on zero, one or two records or on a missing statistic (``tests/test_rule_graph.py``
   throws such runs at every rule). A rule file imports from ``context``, ``curve``,
   ``graph`` and ``..findings`` only, never from another rule file.
2. Add one import line below. Where the line goes decides only ties: the cause ranking
   and the run order follow the declarations; among rules they leave free, the file
   imported first comes first. New codes also go into API.md.

Three habits keep the rules quiet on healthy runs (a healthy run gives no warning or error):
loss-curve verdicts compare window medians against the run's own minibatch noise
(``curve.py``); symptoms are warnings only when learning is poor (``curve.learning_poor``);
causes outrank symptoms (``causes.py``).

Sources named next to the thresholds:
  [lesson]    the course's NetworkDebugger (its rules, and where they cried wolf)
  [playbook]  Google Research "Deep Learning Tuning Playbook" (2023)
  [karpathy]  A. Karpathy, "A Recipe for Training Neural Networks" (2019), and CS231n notes
  [autotrainer] Zhang et al., "AUTOTRAINER: An Automatic DNN Training Problem Detection and
              Repair System", ICSE 2021
  [deepdiag]  Wardat et al., "DeepDiagnosis: Automatically Diagnosing Faults and Recommending
              Actionable Fixes in Deep Learning Programs", ICSE 2022
  [glorot]    Glorot & Bengio, "Understanding the difficulty of training deep feedforward
              neural networks", AISTATS 2010
  [pascanu]   Pascanu, Mikolov & Bengio, "On the difficulty of training recurrent neural
              networks", ICML 2013 (gradient clipping)
  [measured]  chosen here on nndebug's zoo: the value sits between what healthy runs and
              broken runs produce, with a margin on both sides (tests/test_rules.py, the zoo)
  [design]    a choice of method (window sizes, minimum evidence), not a tuned threshold
  [groupnorm] Wu & He, "Group Normalization", ECCV 2018 (batch norm's error against batch size)
  [torchinit] PyTorch's default and nn.init initialisations (what a fresh layer looks like)
  [torchbn]   PyTorch's BatchNorm docs (momentum weighs the new batch; TensorFlow's the old)
  [torchadam] PyTorch's Adam/AdamW docs (Adam adds weight_decay x w to the gradient, AdamW
              decouples it; Loshchilov & Hutter, "Decoupled Weight Decay Regularization", 2019)
  [srivastava] Srivastava et al., "Dropout: A Simple Way to Prevent Neural Networks from
              Overfitting", JMLR 2014 (p is the RETAIN probability there; 0.5 for hidden units)
"""
from . import inputs  # noqa: F401  (one line per rule file, in cause order)
from . import setup  # noqa: F401
from . import output_units  # noqa: F401  (real-bug batch 131: output units never trained)
from . import checkpoint_choice  # noqa: F401  (real-bug batch 139: a late checkpoint restored)
from . import unrestored_best  # noqa: F401  (real-bug batch 266: the best never loaded back)
from . import channel_scales  # noqa: F401  (real-bug batch 138: channels in other units)
from . import optimizer_setup  # noqa: F401
from . import handwritten_updates  # noqa: F401  (real-bug batch 99: update rules by hand)
from . import optimizer_calls  # noqa: F401
from . import loop_modes  # noqa: F401  (real-bug batch 102: train/eval mode of loop steps)
from . import optimizer_restarts  # noqa: F401
from . import shared_optimizers  # noqa: F401
from . import structure  # noqa: F401
from . import frozen_norm_statistics  # noqa: F401
from . import module_flags  # noqa: F401
from . import module_backwards  # noqa: F401  (real-bug batch 107: a module's own backward)
from . import repeated_modules  # noqa: F401
from . import stacked_linears  # noqa: F401
from . import init_scale  # noqa: F401
from . import loss_side  # noqa: F401
from . import ctc_inputs  # noqa: F401
from . import ctc_alignments  # noqa: F401  (real-bug batch 89: CTC lengths, label ids)
from . import class_axis  # noqa: F401
from . import class_weights  # noqa: F401
from . import zero_class_weights  # noqa: F401  (real-bug batch 62)
from . import bce_label_weights  # noqa: F401  (real-bug batch 62)
from . import shrunk_weighted_loss  # noqa: F401  (real-bug batch 62)
from . import padding_idx  # noqa: F401
from . import squashed_logits  # noqa: F401
from . import target_kinds  # noqa: F401
from . import soft_targets  # noqa: F401
from . import target_scale  # noqa: F401
from . import output_width  # noqa: F401
from . import vision_data  # noqa: F401
from . import ignored_majority_class  # noqa: F401  (real-bug batch 67: ignore_index on the background)
from . import loss_scale  # noqa: F401
from . import kl_reduction  # noqa: F401
from . import rng_reseeded  # noqa: F401
from . import data_order  # noqa: F401
from . import few_samples  # noqa: F401
from . import mask_as_index  # noqa: F401  (real-bug batch 160: a 0/1 mask used as an index)
from . import class_order  # noqa: F401
from . import distributed  # noqa: F401
from . import schedulers  # noqa: F401
from . import stopped_learning_rate  # noqa: F401
from . import unstepped_schedulers  # noqa: F401  (real-bug batch 144: a scheduler never stepped)
from . import negative_learning_rate  # noqa: F401  (real-bug batch 123: a rate below zero)
from . import rising_learning_rate  # noqa: F401
from . import optimizer_numerics  # noqa: F401
from . import low_precision_updates  # noqa: F401
from . import settings  # noqa: F401
from . import adam_betas  # noqa: F401
from . import adam_step_bound  # noqa: F401  (real-bug batch 171: a hand-written Adam whose steps outgrow its rate)
from . import functional_dropout  # noqa: F401
from . import loss_terms  # noqa: F401
from . import loss_reductions  # noqa: F401
from . import detached_terms  # noqa: F401
from . import recomputed_segments  # noqa: F401  (real-bug batch 88: checkpointing)
from . import self_additions  # noqa: F401
from . import learning_rate  # noqa: F401
from . import blow_ups  # noqa: F401
from . import signal_flow  # noqa: F401
from . import sequence  # noqa: F401
from . import layouts  # noqa: F401
from . import validation_inputs  # noqa: F401
from . import validation_draws  # noqa: F401
from . import window_overlap  # noqa: F401
from . import validation_gap  # noqa: F401
from . import recurrent_reads  # noqa: F401
from . import random_states  # noqa: F401
from . import embedding_norms  # noqa: F401
from . import worker_duplicates  # noqa: F401
from . import nonfinite_origins  # noqa: F401
from . import rare_positives  # noqa: F401
from . import validation_features  # noqa: F401
from . import lr_multipliers  # noqa: F401
from . import pretrained_weights  # noqa: F401
from . import policy_gradients  # noqa: F401
from . import joint_scaling  # noqa: F401
from . import signed_targets  # noqa: F401  (real-bug batch 29: +1/-1 targets given 0/1)
from . import unknown_ids  # noqa: F401  (real-bug batch 30: <unk> floods the text)
from . import straight_through  # noqa: F401  (real-bug batch 32: x + (q - x), no detach)
from . import aliased_loads  # noqa: F401  (real-bug batch 33: best weights kept by reference)
from . import resumed_state  # noqa: F401  (real-bug batch 33: resumed without optimizer state)
from . import recurrent_state  # noqa: F401  (real-bug batch 34: hidden state never passed back)
from . import reversed_steps  # noqa: F401  (real-bug batch 34: reversed half not flipped back)
from . import contiguous_windows  # noqa: F401  (real-bug batches 170/283: state reset per window)
from . import constant_targets  # noqa: F401  (real-bug batch 31: all-ones implicit feedback)
from . import graph_propagation  # noqa: F401  (real-bug batch 31: adjacency built wrong)
from . import batch_sums  # noqa: F401  (real-bug batch 31: a batch's sum squashed)
from . import parameter_penalties  # noqa: F401  (real-bug batch 36: L2 by hand + weight_decay)
from . import other_turn_gradients  # noqa: F401  (real-bug batch 36: a GAN's turns)
from . import outer_differences  # noqa: F401  (real-bug batch 35: (N, 1) - (N,) in a loss)
from . import batch_overlaps  # noqa: F401  (real-bug batch 38: a Dice over the whole batch)
from . import conflicting_labels  # noqa: F401  (real-bug batch 45: one input, two labels)
from . import weight_decay_time_constant  # noqa: F401  (real-bug batch 45: SGD decay of 0.5)
from . import pooled_log_probs  # noqa: F401  (real-bug batch 44: log_probs.mean() * returns)
from . import ppo_ratios  # noqa: F401  (real-bug batch 44: PPO's ratio always 1)
from . import ctc_targets  # noqa: F401  (real-bug batch 38: a CTC label = the blank)
from . import masked_tokens  # noqa: F401  (real-bug batch 40: a masked LM reads visible labels)
from . import token_order  # noqa: F401  (real-bug batch 40: attention with no positions)
from . import packed_documents  # noqa: F401  (real-bug batch 40: packed rows read across)
from . import one_unit_softmax  # noqa: F401  (real-bug batch 41: softmax over one number)
from . import reshape_transposes  # noqa: F401  (real-bug batch 41: a view as a transpose)
from . import target_columns  # noqa: F401  (real-bug batch 42: outputs in other units)
from . import near_zero_divisors  # noqa: F401  (real-bug batch 42: |y - p| / |y|, y ~ 0)
from . import target_values_in_features  # noqa: F401  (real-bug batch 42: windows reading ahead)
from . import in_place_skips  # noqa: F401  (real-bug batch 43: relu_ on a skip's input)
from . import shared_norm_sites  # noqa: F401  (real-bug batch 43: one BN at two sites)
from . import reparameterisations  # noqa: F401  (real-bug batch 37: a VAE's z = mu + eps * std)
from . import unbounded_loss  # noqa: F401  (real-bug batch 37: a loss with no floor)
from . import discarded_losses  # noqa: F401  (real-bug batch 22: a loss never back-propagated)
from . import clipped_after_step  # noqa: F401  (real-bug batch 22: a clip after the step)
from . import late_gradients  # noqa: F401  (real-bug batch 50: loop order)
from . import zero_terms  # noqa: F401  (real-bug batch 50: a term on the wrong tensors)
from . import rewritten_weights  # noqa: F401  (real-bug batch 58: weights copied in)
from . import requantized_weights  # noqa: F401  (real-bug batch 106: quantized weights written in)
from . import self_references  # noqa: F401  (real-bug batch 58: a reference = the model)
from . import target_id_offset  # noqa: F401  (real-bug batch 46: label ids offset)
from . import validation_rows  # noqa: F401  (real-bug batch 46: rows in both splits)
from . import split_sizes  # noqa: F401  (real-bug batch 268: a held-out split larger than training)
from . import early_stop  # noqa: F401  (real-bug batches 139, 266: a run ended while improving fast)
from . import row_standardised_inputs  # noqa: F401  (real-bug batch 46: axis=1 scaling)
from . import sample_normalisation  # noqa: F401  (real-bug batch 172: per-utterance CMVN)
from . import scaled_labels  # noqa: F401  (real-bug batch 185: 0/1 labels scaled to 0/(1/256))
from . import cancelled_class_weights  # noqa: F401  (real-bug batch 186: weights at batch size 1)
from . import variational_terms  # noqa: F401  (real-bug batches 141, 193: a KL outweighing the NLL)
from . import duplicated_inputs  # noqa: F401  (real-bug batch 59: copied feature lines)
from . import scaler_range  # noqa: F401  (real-bug batch 59: a scaler fitted before the split)
from . import teacher_forced_validation  # noqa: F401  (real-bug batch 59: teacher-forced validation)
from . import checkpoint_rates  # noqa: F401  (real-bug batch 48: a restart keeps the old lr)
from . import schedule_length  # noqa: F401  (real-bug batch 48: a schedule stepped off plan)
from . import group_rates  # noqa: F401  (real-bug batch 78: one rate written into every group)
from . import constant_decoder_inputs  # noqa: F401  (real-bug batch 49: a decoder fed zeros)
from . import swapped_loss_arguments  # noqa: F401  (real-bug batch 52: BCE arguments)
from . import squashed_scores  # noqa: F401  (real-bug batch 52: a sigmoid critic)
from . import derivative_losses  # noqa: F401  (real-bug batch 56: losses built from derivatives)
from . import rare_classes  # noqa: F401  (real-bug batch 51: a rare class never predicted)
from . import squared_error_labels  # noqa: F401  (real-bug batch 51: one-hot labels by MSE)
from . import margin_label_targets  # noqa: F401  (real-bug batch 54: multi-hot rows as ids)
from . import soft_target_labels  # noqa: F401  (real-bug batch 55: KD targets vs labels)
from . import unestimated_norm_statistics  # noqa: F401  (real-bug batch 55: an EMA's buffers)
from . import averaged_copies  # noqa: F401  (real-bug batch 96: EMA/SWA copies)
from . import teacher_train_mode  # noqa: F401  (real-bug batch 55: a teacher's dropout on)
from . import single_value_norms  # noqa: F401  (real-bug batch 60: one value per group)
from . import dropout_on_output  # noqa: F401  (real-bug batch 60: dropout after the output)
from . import multiplied_skips  # noqa: F401  (real-bug batch 57: a skip joined with *)
from . import head_softmaxes  # noqa: F401  (real-bug batch 57: softmax across heads)
from . import categorical_inputs  # noqa: F401  (real-bug batch 63: codes, fields, rows)
from . import input_precision  # noqa: F401  (real-bug batch 61: inputs cast to bfloat16)
from . import wrapped_inputs  # noqa: F401  (real-bug batch 61: uint8 arithmetic wrapped)
from . import validation_targets  # noqa: F401  (real-bug batch 61: validation targets .long())
from . import class_padding  # noqa: F401  (real-bug batch 65: one class padded)
from . import label_drift  # noqa: F401  (real-bug batch 65: labels drift along the frames)
from . import target_axes  # noqa: F401  (real-bug batch 115: heatmaps drawn on swapped axes)
from . import uninitialised_parameters  # noqa: F401  (real-bug batch 64: torch.Tensor weights)
from . import init_scale_small  # noqa: F401  (real-bug batch 64: a fan-in of every weight)
from . import in_place_inputs  # noqa: F401  (real-bug batch 64: x += noise on the data)
from . import init_values  # noqa: F401  (real-bug batch 80: equal units, norm gains, zero tables)
from . import batched_edges  # noqa: F401  (real-bug batch 66: graphs batched, edges not offset)
from . import feature_axis_readouts  # noqa: F401  (real-bug batch 66: h.mean(-1) readout)
from . import validation_scale  # noqa: F401  (real-bug batch 70: a validation loss misscaled)
from . import unseen_classes  # noqa: F401  (real-bug batch 70: validation classes never trained)
from . import hinge_margins  # noqa: F401  (real-bug batch 68: a distance's margins on cosines)
from . import narrow_lookups  # noqa: F401  (real-bug batch 68: negatives from shape[1] ids)
from . import null_condition_lookups  # noqa: F401  (real-bug batch 120: CFG null class read mostly)
from . import regression_targets  # noqa: F401  (real-bug batch 69: inf targets, log of a rate)
from . import diffusion_noise_scale  # noqa: F401  (real-bug batch 71: noise scaled by 1 - ab)
from . import pretrained_statistics  # noqa: F401  (real-bug batch 73: preprocessing unlike pretraining)
from . import mixup_partners  # noqa: F401  (real-bug batch 76: mixup labels paired by a 2nd shuffle)
from . import mask_inputs  # noqa: F401  (real-bug batch 22: the input replaced by its own transformed mask)
from . import loss_signs  # noqa: F401  (real-bug batch 75: a likelihood without its minus sign)
from . import class_means  # noqa: F401  (real-bug batch 75: a loss averaged over its classes)
from . import empty_overlaps  # noqa: F401  (real-bug batch 75: a Dice smoothed only below)
from . import augmented_targets  # noqa: F401  (real-bug batch 76: masks colour-jittered)
from . import attention_scale  # noqa: F401  (real-bug batch 79: logits scaled twice)
from . import turned_off_parameters  # noqa: F401  (real-bug batch 81: requires_grad left off)
from . import soft_target_gradients  # noqa: F401  (real-bug batch 85: soft targets with a gradient)
from . import self_masked_targets  # noqa: F401  (real-bug batch 85: a BCE weighted by its targets)
from . import posterior_draws  # noqa: F401  (real-bug batch 91: how a VAE's z is drawn)
from . import data_loaders  # noqa: F401  (real-bug batch 95: loaders in scope, stored data)
from . import pruning  # noqa: F401  (real-bug batch 94: pruned weights regrown, layers pruned whole)
from . import log_prob_axes  # noqa: F401  (real-bug batch 97: log-probs normalised over the batch)
from . import carried_run_state  # noqa: F401  (real-bug batch 100: optimizer state from an earlier run)
from . import output_norms  # noqa: F401  (real-bug batch 105: a norm feeding the output squash)
from . import placeholder_points  # noqa: F401  (real-bug batch 115: unlabelled keypoints trained)
from . import random_projections  # noqa: F401  (real-bug batch 113: random features drawn in forward)
from . import after_training  # noqa: F401  (real-bug batches 105/114: forwards after the last step)
from . import aggregate_scale  # noqa: F401  (real-bug batch 183: aggregates not normalised)
from . import loss_curve  # noqa: F401
from . import causes
from .context import Context
from .graph import REGISTRY, FoundView, cause_order, check_produced, explains_table, run_order

RULES = run_order(REGISTRY)              # each rule after the rules whose codes it reads
CAUSE_ORDER = cause_order(REGISTRY)      # every code, causes before their symptoms
EXPLAINS = explains_table(REGISTRY)      # cause -> the symptoms it explains


def diagnose(run):
    """All findings for a recorded run, causes before symptoms within each severity."""
    ctx = Context(run)
    found, findings = {}, []
    for rule in RULES:
        ctx.found = FoundView(found, rule)
        result = rule(ctx)
        for finding in [] if result is None else result if isinstance(result, list) else [result]:
            check_produced(rule, finding)
            findings.append(finding)
            found[finding.code] = finding
    ctx.found = found
    return link_causes(findings)


def link_causes(findings):
    """``causes.link_causes`` with the ranking derived from the rules' declarations."""
    return causes.link_causes(findings, CAUSE_ORDER, EXPLAINS)

"""The saved-run format: a watched run on disk (``mon.save``, ``watch(save_to=...)``) and in
a checkpoint (``mon.state_dict()``), and ``nndebug.load_run`` to read it back.

The file (``.nndebug``, version 2) is a ZIP archive, so any ZIP tool can open it:

- ``nndebug-run.json``, always the first member: a JSON header
  ``{"format": "nndebug-run", "version": 2, "nndebug_version", "saved_at" (UTC, ISO 8601),
  "framework", "n_steps", "has_optimizer", "settings", "summary" (parameter and layer
  counts), "params" [{name, shape, trainable, in_optimizer,
  times_in_optimizer}], "layers" [{name, type, kind}],
  "findings" [Finding.to_dict()], "curves" {"train"|"val": {"width"}}, "history" (the
  retention state: budget, thinning grids), "records" (the names of the columns below, the
  dropout/batch-norm layers found in eval mode per record), "histograms" (layer names),
  "monitor" (what a resumed monitor continues from: the step counter), "observed" (what the
  monitor saw around the model, ``nndebug.observed``: loss calls, warnings, unregistered
  parts, frozen tensors, batch-norm batch sizes, graph sizes, the plain rows some rules read
  (optimizer starts, validation inputs, seed calls, window overlap, module freeze flags,
  16-bit parameters, recurrent states drawn at random, probability targets' row sums), the
  steps of the validation draws; not the kept target tensors)}``;
  NaN and infinities in findings' evidence are written as the strings "nan", "inf", "-inf";
- ``arrays/NAME.npy``: NumPy arrays in the ``.npy`` format, never object arrays:
  ``loss.train.steps`` (int64), ``loss.train.values`` (float64) the full-resolution part of
  the curve, ``loss.train.buckets`` (k x 8 float64: first step, last step, count, min, mean,
  max, non-finite count, first non-finite step; see ``nndebug.history``), the same for
  ``loss.val``; ``records.step`` (int64), ``records.backward`` and ``records.judged`` (bool:
  read by the rules, or an extra record for plots), ``records.scalars``
  (records x keys float64) with ``records.scalars_present`` (bool: NaN is a value, absence is
  not), one column per ``header.records.scalar_keys`` entry (["activation", layer, stat] or
  ["input", stat]); ``records.vectors.data`` (float64, all per-record arrays concatenated)
  with ``records.vectors.index`` (rows: record, key, offset, first dim, second dim or -1), keys
  in ``header.records.vector_keys`` (["grad_norm"], ..., ["output"], ["lrs"]); the boolean
  ones (["grad_received"], ["dead", layer]: the dead-unit masks) in ``records.flags.data``
  (bool) with ``records.flags.index`` (the same rows, keys in the same list);
  ``histograms.step`` and ``histograms.data``/``histograms.index`` (rows: entry, layer,
  offset, counts length, edges length); ``fingerprints`` (float64, one per early step: the
  batch fingerprints of ``nndebug.monitor.batches``); ``observed.validation_draws.I`` (the
  I-th validation draw of ``Observed.validation_draws``: its first rows, 2-D, float32 when
  that keeps every value exactly, else float64; as many as the monitor keeps).

A file without "observed" or ``fingerprints`` (written before they were saved) reads as a run
that observed nothing around the model; one whose "observed" lacks a field (written before it
was declared) reads that field as its default in ``Observed``. Version 1 (read as well) kept the boolean vectors as
float64 in ``records.vectors.data``: eight times their size (a 20k-step run of a 24-layer MLP
saved 41 MiB, most of it dead-unit masks); a reader of version 1 refuses version 2 files
instead of losing their masks.

Reading never unpickles (``allow_pickle=False``): nothing executable is loaded. Writing is
atomic: the whole file goes to a temporary file in the same folder, is flushed to disk, and
replaces the old one with ``os.replace``; a process killed at any moment leaves the last
complete save. The temporary file is named ``.<name>.<pid>-<random>.tmp``; one that a killed
process left is removed by the next save to the same path. A file that is truncated, foreign or written by a newer version raises
``RunFileError`` with one line saying what was expected and what to do.

``mon.state_dict()`` holds the same header and arrays as ``{"format", "version", "header",
"arrays"}``: strings, numbers, lists, dicts, and torch tensors for the arrays when torch is
loaded (else ``{"dtype", "shape", "data"}`` lists), so ``torch.load`` reads it with its safe
defaults (``weights_only=True``).
"""
import dataclasses
import datetime
import io
import json
import os
import re
import sys
import tempfile
import time
import zipfile

import numpy as np

from . import rank_records
from .findings import Finding, sort_findings
from .history import BoundedRun
from .observed import (DropoutSetting, FrozenTensor, FunctionalDropout, LayerLayout, LossCall,
                       LossTerm, NormBatch, NormSetting, Observed, OptimizerSetting,
                       PaddingLookup, RaisedWarning, ROW_LISTS, SchedulerState, STEP_LISTS,
                       UnregisteredUse)
from .records import LayerInfo, ParamInfo, StepRecord
from .report.json import plain

FORMAT = "nndebug-run"
VERSION = 2
HEADER = "nndebug-run.json"
ARRAYS = "arrays/"
PER_PARAMETER = ("grad_norm", "grad_received", "held_norm", "held_excess", "param_norm",
                 "update_norm")
BOOLEAN_VECTORS = {"grad_received", "dead"}
_NUMBERS = {"nan": float("nan"), "inf": float("inf"), "-inf": float("-inf")}
OBSERVED_LISTS = {"loss_calls": LossCall, "warnings": RaisedWarning,
                  "unregistered": UnregisteredUse, "frozen": FrozenTensor,
                  "norm_batches": NormBatch, "norm_settings": NormSetting,
                  "padding_lookups": PaddingLookup, "schedulers": SchedulerState,
                  "optimizer_settings": OptimizerSetting, "dropout_settings": DropoutSetting,
                  "loss_terms": LossTerm, "functional_dropouts": FunctionalDropout,
                  "layer_layouts": LayerLayout}
TUPLE_FIELDS = {"output_shape", "target_shape", "shape", "class_weights", "target_counts",
                "ids_shape", "lrs", "base_lrs", "min_lrs", "viewed_from", "betas",
                "input_shape", "predicted_classes"}


class RunFileError(ValueError):
    """A saved run that cannot be read: the message is one line saying why and what to do."""


# ============================================================================================
# a run <-> (header, arrays)
# ============================================================================================
def encode(run, findings, monitor_state=None):
    """(header dict of JSON values, {name: ndarray}) for a ``BoundedRun`` and its findings."""
    arrays, header = {}, {
        "format": FORMAT, "version": VERSION, "nndebug_version": _nndebug_version(),
        "saved_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "framework": run.framework, "n_steps": int(run.n_steps),
        "has_optimizer": bool(run.has_optimizer), "settings": plain(dict(run.settings)),
        "summary": {"parameters": len(run.params), "layers": len(run.layers),
                    "trainable_elements": int(sum(int(np.prod(p.shape)) for p in run.params))},
        "params": [p.to_dict() for p in run.params],
        "layers": [{"name": l.name, "type": l.type, "kind": l.kind} for l in run.layers],
        "findings": [f.to_dict() for f in findings],
        "monitor": plain(dict(monitor_state or {})),
    }
    curves = {}
    for which in ("train", "val"):
        state = run.curve(which).state()
        arrays[f"loss.{which}.steps"] = state["steps"]
        arrays[f"loss.{which}.values"] = state["values"]
        arrays[f"loss.{which}.buckets"] = state["buckets"]
        curves[which] = {"width": int(state["width"])}
    header["curves"] = curves
    header["history"] = {"max_bytes": run.max_bytes, "record_grid": run._record_grid,
                         "extra_grid": run._extra_grid,
                         "histogram_grid": run._histogram_grid, "compactions": run.compactions}
    header["records"] = _encode_records(run.records, arrays)
    header["histograms"] = _encode_histograms(run.histograms, arrays)
    header["observed"] = _encode_observed(getattr(run, "observed", None), arrays)
    if getattr(run, "ranks", None) is not None:        # what the ranks of a DDP run exchanged
        header["ranks"] = plain(rank_records.to_plain(run.ranks))
    arrays["fingerprints"] = np.asarray(list(getattr(run, "fingerprints", None) or []),
                                        dtype=np.float64).reshape(-1)
    return header, arrays


def _encode_observed(observed, arrays=None):
    """``Observed`` as JSON values (NaN as "nan"); the target tensors kept for probes are left
    out: they are framework tensors, and the probes that read them run once, early. The
    validation draws (NumPy arrays) go to ``arrays`` (left out without it)."""
    if observed is None:
        return {}
    data = {name: plain([dataclasses.asdict(item) for item in getattr(observed, name)])
            for name in OBSERVED_LISTS}
    data["graph_nodes"] = plain(list(observed.graph_nodes))
    data["batch_rows"] = plain(list(observed.batch_rows))
    data.update({name: [int(s) for s in getattr(observed, name)] for name in STEP_LISTS})
    data["repeated_total"] = int(observed.repeated_total)
    data["multi_step_total"] = int(observed.multi_step_total)
    data["train_backward_total"] = int(observed.train_backward_total)
    data["unstepped_gradients"] = int(observed.unstepped_gradients)
    data.update({name: plain([list(row) for row in getattr(observed, name)])
                 for name in ROW_LISTS})
    data["window_overlap"] = plain(observed.window_overlap)
    data["parameter_dtypes"] = plain(dict(observed.parameter_dtypes))
    data["random_rnn_states"] = plain([dict(call) for call in observed.random_rnn_states])
    data.update(_encode_validation_draws(observed, arrays))
    return data


def decode_observed(data, arrays=None):
    """An ``Observed`` from ``_encode_observed``'s dict and the run's arrays (missing lists:
    empty)."""
    observed = Observed()
    for name, kind in OBSERVED_LISTS.items():
        items = getattr(observed, name)
        for item in data.get(name) or []:
            values = {}
            for f in dataclasses.fields(kind):
                if f.name not in item:
                    continue
                value = item[f.name] if f.type is str else _number(item[f.name])
                if f.name in TUPLE_FIELDS and value is not None:
                    value = tuple(value)
                elif f.name == "shapes":
                    value = [tuple(shape) for shape in value]
                values[f.name] = value
            items.append(kind(**values))
    observed.graph_nodes.extend((int(step), int(nodes)) for step, nodes in
                                data.get("graph_nodes") or [])
    observed.batch_rows.extend(tuple(int(v) for v in row) for row in data.get("batch_rows") or [])
    for name in STEP_LISTS:
        getattr(observed, name).extend(int(step) for step in data.get(name) or [])
    observed.repeated_total = int(data.get("repeated_total") or 0)
    observed.multi_step_total = int(data.get("multi_step_total") or 0)
    observed.train_backward_total = int(data.get("train_backward_total") or 0)
    observed.unstepped_gradients = int(data.get("unstepped_gradients") or 0)
    for name, read_row in ROW_READERS.items():
        getattr(observed, name).extend(read_row(row) for row in data.get(name) or [])
    observed.window_overlap = _window_overlap(data.get("window_overlap"))
    observed.parameter_dtypes.update({str(name): str(dtype) for name, dtype in
                                      dict(data.get("parameter_dtypes") or {}).items()})
    observed.random_rnn_states.extend(_random_rnn_state(call)
                                      for call in data.get("random_rnn_states") or [])
    observed.validation_draws.extend(_decode_validation_draws(data.get("validation_draws"),
                                                              arrays or {}))
    return observed


# each row of ``Observed``'s ROW_LISTS, read back with its types (JSON made it a list)
def _optimizer_start(row):
    step, optimizer = row[:2]
    rate = row[2:]        # the first group's learning rate (none in files saved before it)
    return (int(step), str(optimizer)) + tuple(float(_number(r)) for r in rate)


def _validation_input(row):
    step, mean, std, norm_training, dropout_training = row[:5]
    negative = row[5:]     # the share of negative entries (none in files saved before it)
    return (int(step), float(_number(mean)), float(_number(std)), bool(norm_training),
            bool(dropout_training)) + tuple(float(_number(v)) for v in negative)


def _seed_call(row):
    step, seed = row
    return int(step), int(seed)


def _module_freeze_flag(row):
    module, trainable = row
    return str(module), [str(name) for name in trainable]


def _soft_target_row(row):
    step, loss, sums = row
    return int(step), str(loss), [float(_number(s)) for s in sums]


def _shared_optimizers(row):
    step, optimizers, both = row
    return int(step), [str(name) for name in optimizers], int(both)


def _whole_batch_norm(row):
    step, shape = row
    return int(step), [int(n) for n in shape]


def _nonfinite_birth(row):
    step, phase, operation, module, source, output_nonfinite = row
    return (int(step), str(phase), str(operation), str(module), str(source),
            bool(output_nonfinite))


def _loss_reductions(row):
    step, terms = row
    return int(step), [(str(name), str(reduction), None if scale is None else
                        float(_number(scale)), int(batch))
                       for name, reduction, scale, batch in terms]


def _self_additions(row):
    step, additions = row
    return int(step), int(additions)


def _detached_terms(row):
    step, addend, tensors, verdict = row
    return int(step), str(addend), int(tensors), str(verdict)


ROW_READERS = {"optimizer_starts": _optimizer_start, "validation_inputs": _validation_input,
               "seed_calls": _seed_call, "module_freeze_flags": _module_freeze_flag,
               "soft_target_rows": _soft_target_row, "shared_optimizers": _shared_optimizers,
               "whole_batch_norms": _whole_batch_norm, "nonfinite_births": _nonfinite_birth,
               "loss_reductions": _loss_reductions, "detached_terms": _detached_terms,
               "self_additions": _self_additions,
               "unannounced_evaluations": _validation_input}


def _repeated_module(row):
    container, child_type, positions, tensors = row
    return str(container), str(child_type), [int(p) for p in positions], int(tensors)


def _stacked_linear(row):
    step, first, second, inputs, width, outputs, trains = row
    return (int(step), str(first), str(second), int(inputs), int(width), int(outputs),
            bool(trains))


ROW_READERS.update(repeated_modules=_repeated_module, stacked_linears=_stacked_linear)


def _policy_gradient_term(row):
    step, weight, signs, picked, rows, *multiplied = row   # files before batch 294: 5 fields
    multiplied = multiplied[0] if multiplied else picked
    return int(step), str(weight), str(signs), int(picked), int(rows), int(multiplied)


def _entropy_term(row):
    step, verdict = row
    return int(step), str(verdict)


ROW_READERS.update(policy_gradient_terms=_policy_gradient_term,   # real-bug batch 25
                   entropy_terms=_entropy_term)


def _lr_multiplier(row):
    group, key, multiplier, lr = row
    return (int(group), str(key), None if multiplier is None else float(_number(multiplier)),
            None if lr is None else float(_number(lr)))


def _slow_group_weight(row):
    group, lr, fastest, name, looks_like = row
    return int(group), float(_number(lr)), float(_number(fastest)), str(name), str(looks_like)


ROW_READERS.update(lr_multipliers=_lr_multiplier,
                   slow_group_weights=_slow_group_weight)   # real-bug batch 28


def _feature_moment(row):
    kind, step, rows, means, stds = row
    return (str(kind), int(step), int(rows), [float(_number(v)) for v in means],
            [float(_number(v)) for v in stds])


ROW_READERS.update(feature_moments=_feature_moment)   # real-bug batch 27


def _joint_scaling(row):
    step, level, statistic, rows, together, inputs, targets, key = row
    return (int(step), str(level), str(statistic), int(rows), float(_number(together)),
            float(_number(inputs)), float(_number(targets)), int(key))


ROW_READERS.update(joint_scaling=_joint_scaling)   # real-bug batch 26


def _signed_target(row):
    step, loss, values, plus, minus, zeros = row
    return int(step), str(loss), int(values), int(plus), int(minus), int(zeros)


ROW_READERS.update(signed_targets=_signed_target)   # real-bug batch 29


def _token_id_share(row):
    step, layer, common, share, inner, counted = row
    return (int(step), str(layer), int(common), float(_number(share)), float(_number(inner)),
            int(counted))


ROW_READERS.update(token_id_shares=_token_id_share)   # real-bug batch 30


def _category_id_share(row):
    step, layer, common, share, counted, rows = row
    return (int(step), str(layer), int(common), float(_number(share)), int(counted), int(rows))


ROW_READERS.update(category_id_shares=_category_id_share)   # real-bug batch 273


def _propagation_matrix(row):
    step, nodes, binary, median, largest, triangular, empty, no_loops, symmetric = row
    return (int(step), int(nodes), bool(binary), float(_number(median)),
            float(_number(largest)), bool(triangular), float(_number(empty)),
            bool(no_loops), bool(symmetric))


def _squashed_batch_sum(row):
    step, squashing, reduction, shape = row
    return int(step), str(squashing), str(reduction), [int(n) for n in shape]


ROW_READERS.update(propagation_matrices=_propagation_matrix,
                   squashed_batch_sums=_squashed_batch_sum)   # real-bug batch 31
ROW_READERS.update(maximised_probabilities=lambda row: (int(row[0]), str(row[1]), str(row[2]),
                                                       int(row[3])),   # real-bug batch 68
                   loss_hinges=lambda row: (int(row[0]), int(row[1]), bool(row[2])),
                   narrow_lookups=lambda row: (str(row[0]), int(row[1]), int(row[2]),
                                               int(row[3]), [tuple(int(v) for v in call)
                                                             for call in row[4]]))
ROW_READERS.update(null_condition_lookups=lambda row: (str(row[0]),) + tuple(
    int(v) for v in row[1:6]))   # real-bug batch 120


def _reversed_concatenation(row):
    step, reversed_layer, other_layer = row
    return int(step), str(reversed_layer), str(other_layer)


ROW_READERS.update(reversed_concatenations=_reversed_concatenation)   # real-bug batch 34


def _straight_through_cancellation(row):
    step, sums = row
    return int(step), int(sums)


ROW_READERS.update(straight_through_cancellations=_straight_through_cancellation)   # batch 32


def _parameter_penalty(row):
    step, penalised, decayed, decay, decoupled = row
    return int(step), int(penalised), int(decayed), float(_number(decay)), bool(decoupled)


ROW_READERS.update(parameter_penalties=_parameter_penalty)   # real-bug batch 36
ROW_READERS.update(penalty_decays=lambda row: (int(row[0]), int(row[1]),
                                               float(_number(row[2]))))   # real-bug batch 277
ROW_READERS.update(summed_errors=lambda row: (int(row[0]), str(row[1]), float(_number(row[2])),
                                              float(_number(row[3])), str(row[4])))   # batch 281


def _other_turn_gradient(row):
    step, verdict, *through_rival = row      # runs saved before the third field: False
    return int(step), str(verdict), bool(through_rival and through_rival[0])


ROW_READERS.update(other_turn_gradients=_other_turn_gradient)   # real-bug batch 36
ROW_READERS.update(other_optimizer_carries=lambda row: (int(row[0]), str(row[1]),
                                                        int(row[2])))   # real-bug batch 187


def _outer_difference(row):
    step, table, operand = row
    return int(step), [int(n) for n in table], [int(n) for n in operand]


ROW_READERS.update(outer_differences=_outer_difference)   # real-bug batch 35


def _discarded_losses(row):
    step, forwards, calls, reached, produced, read = row
    return int(step), int(forwards), int(calls), int(reached), int(produced), int(read)


def _gradients_after_step(row):
    step, compared, smallest, largest = row
    return int(step), int(compared), float(smallest), float(largest)


ROW_READERS.update(discarded_losses=_discarded_losses,
                   gradients_after_step=_gradients_after_step)   # real-bug batch 39


def _whole_batch_overlap(row):
    step, shape = row
    return int(step), [int(n) for n in shape]


ROW_READERS.update(whole_batch_overlaps=_whole_batch_overlap)   # real-bug batch 38


def _ctc_blank_target(row):
    step, blank, labels, as_blank = row
    return int(step), int(blank), int(labels), int(as_blank)


ROW_READERS.update(ctc_blank_targets=_ctc_blank_target)   # real-bug batch 38


def _ctc_alignment(row):
    step, classes, zero_infinity, lines, short, labels, beyond = row
    return (int(step), int(classes), bool(zero_infinity), int(lines), int(short),
            int(labels), int(beyond))


ROW_READERS.update(ctc_alignments=_ctc_alignment)   # real-bug batch 89


def _visible_target(row):
    step, read, visible, corruption, holding, hidden = row
    return int(step), int(read), int(visible), int(corruption), int(holding), int(hidden)


def _order_blind_output(row):
    step, kind, length, change = row
    return int(step), str(kind), int(length), float(change)


def _cross_document_read(row):
    step, packed, crossed, change = row
    return int(step), int(packed), int(crossed), float(change)


ROW_READERS.update(visible_targets=_visible_target, order_blind_outputs=_order_blind_output,
                   cross_document_reads=_cross_document_read)   # real-bug batch 40


def _one_unit_softmax(row):
    step, function, shape, axis = row
    return int(step), str(function), [int(n) for n in shape], int(axis)


def _transposing_reshape(row):
    step, before, after, order = row
    return int(step), [int(n) for n in before], [int(n) for n in after], [int(i) for i in order]


ROW_READERS.update(one_unit_softmaxes=_one_unit_softmax,   # real-bug batch 41
                   transposing_reshapes=_transposing_reshape)


def _multiplied_skip(row):
    step, products, shapes = row
    return int(step), int(products), [[int(n) for n in shape] for shape in shapes]


def _head_softmax(row):
    step, found = row
    return int(step), [(int(group), int(contracted), [int(n) for n in before])
                       for group, contracted, before in found]


def _patch_grid_reshape(row):
    step, before, after, patch = row
    return int(step), [int(n) for n in before], [int(n) for n in after], int(patch)


ROW_READERS.update(multiplied_skips=_multiplied_skip,   # real-bug batch 57
                   head_softmaxes=_head_softmax, patch_grid_reshapes=_patch_grid_reshape)


def _target_column_scale(row):
    step, loss, rows, stds = row
    return int(step), str(loss), int(rows), [float(s) for s in stds]


ROW_READERS.update(target_column_scales=_target_column_scale)   # real-bug batch 42
ROW_READERS.update(box_corner_orders=lambda row: (   # real-bug batch 262
    *(int(v) for v in row[:4]), [float(v) for v in row[4]], [float(v) for v in row[5]]))


def _near_zero_divisor(row):
    step, elements, smallest, median = row
    return int(step), int(elements), float(smallest), float(median)


ROW_READERS.update(near_zero_divisors=_near_zero_divisor)   # real-bug batch 42


def _target_value_match(row):
    step, rows, row_shape, column, matches = row
    return int(step), int(rows), [int(n) for n in row_shape], int(column), int(matches)


ROW_READERS.update(target_value_matches=_target_value_match)   # real-bug batch 42


def _diffusion_noise_level(row):   # real-bug batch 71
    step, levels, signals = row
    return int(step), [float(v) for v in levels], [float(v) for v in signals]


ROW_READERS.update(diffusion_noise_levels=_diffusion_noise_level)   # real-bug batch 71


def _duplicated_input_column(row):   # real-bug batch 59
    step, rows, features, varied, groups = row
    return int(step), int(rows), int(features), int(varied), \
        [[int(c) for c in group] for group in groups]


def _duplicated_argument(row):   # real-bug batches 314-315
    step, compared, pairs = row
    return int(step), int(compared), [[int(i) for i in pair] for pair in pairs]


def _input_range(row):   # real-bug batch 59
    kind, step, forwards, low, high = row
    return str(kind), int(step), int(forwards), float(low), float(high)


def _validation_teacher_input(row):   # real-bug batch 59
    step, place, shape, same, following, earlier, own, later = row
    return int(step), str(place), [int(n) for n in shape], float(same), float(following), \
        bool(earlier), bool(own), bool(later)


ROW_READERS.update(duplicated_arguments=_duplicated_argument)   # real-bug batches 314-315
ROW_READERS.update(duplicated_input_columns=_duplicated_input_column,   # real-bug batch 59
                   input_ranges=_input_range,
                   validation_teacher_inputs=_validation_teacher_input)


def _conflicting_label_row(row):   # real-bug batch 45
    step, rows, distinct, clashing = row
    return int(step), int(rows), int(distinct), int(clashing)


ROW_READERS.update(conflicting_label_rows=_conflicting_label_row)   # real-bug batch 45


def _class_only_padding(row):   # real-bug batch 65
    step, rows, padded, padded_labels, other_labels = row
    return (int(step), int(rows), int(padded), [int(v) for v in padded_labels],
            [int(v) for v in other_labels])


def _position_losses(row):   # real-bug batch 65
    step, classes, losses, entropy = row
    return int(step), int(classes), [float(v) for v in losses], [float(v) for v in entropy]


ROW_READERS.update(class_only_padding=_class_only_padding,   # real-bug batch 65
                   position_losses=_position_losses)
ROW_READERS.update(attention_scales=lambda row: (   # real-bug batch 79
    str(row[0]), None if row[1] is None else int(row[1]), int(row[2]),
    [float(v) for v in row[3]], bool(row[4])))
ROW_READERS.update(uniform_attention=lambda row: (   # real-bug batch 101
    str(row[0]), None if row[1] is None else int(row[1]), int(row[2]), int(row[3])))
ROW_READERS.update(weights_on_grid=lambda row: (   # real-bug batch 106
    int(row[0]), float(_number(row[1])), float(_number(row[2])), float(_number(row[3])),
    float(_number(row[4]))))


def _start_parameter_value(row):   # real-bug batch 64
    name, shape, trainable, nonfinite, largest = row
    return str(name), [int(n) for n in shape], bool(trainable), int(nonfinite), float(largest)


def _in_place_input(row):   # real-bug batch 64
    step, shape, larger, elements, fed_again = row
    return int(step), [int(n) for n in shape], bool(larger), int(elements), bool(fed_again)


ROW_READERS.update(identical_units=lambda row: (   # real-bug batch 80
    str(row[0]), [int(n) for n in row[1]], *(float(v) for v in row[2:6])))
ROW_READERS.update(turned_off_parameters=lambda row: (   # real-bug batch 81
    str(row[0]), [int(n) for n in row[1]]))
ROW_READERS.update(start_parameter_values=_start_parameter_value,   # real-bug batch 64
                   in_place_inputs=_in_place_input)
ROW_READERS.update(output_row_norms=lambda row: (   # real-bug batch 156
    str(row[0]), [float(_number(v)) for v in row[1]]))
ROW_READERS.update(one_signed_start_parameters=lambda row: (   # real-bug batch 247
    str(row[0]), [int(n) for n in row[1]]))
ROW_READERS.update(zero_start_parameters=lambda row: (   # real-bug batch 82
    str(row[0]), [int(n) for n in row[1]]))
ROW_READERS.update(averaged_copies=lambda row: (   # real-bug batch 96
    str(row[0]), str(row[1]), str(row[2]), *[int(n) for n in row[3:9]]))
ROW_READERS.update(unloaded_checkpoints=lambda row: (   # real-bug batch 90
    str(row[0]), str(row[1]), int(row[2]), int(row[3]), float(row[4]), float(row[5])))
ROW_READERS.update(recomputed_segments=lambda row: (   # real-bug batch 88
    int(row[0]), [str(n) for n in row[1]], bool(row[2]),
    None if row[3] is None else float(row[3]), None if row[4] is None else bool(row[4]),
    None if row[5] is None else str(row[5])))
ROW_READERS.update(input_gradient_passes=lambda row: (   # real-bug batch 87
    int(row[0]), int(row[1]), int(row[2])))
ROW_READERS.update(carried_state=lambda row: (   # real-bug batch 100 (monitor/carried_state.py)
    str(row[0]), str(row[1]), float(_number(row[2]))))
ROW_READERS.update(update_fits=lambda row: (   # real-bug batch 99 (monitor/update_samples.py)
    str(row[0]), int(row[1]), *(float(_number(v)) for v in row[2:6]), int(row[6]),
    *(float(_number(v)) for v in row[7:9]),
    # steps compared for direction, share climbing the gradient (batch 322; absent in runs
    # saved before it)
    *((int(row[9]), float(_number(row[10]))) if len(row) > 10 else ())))
ROW_READERS.update(   # real-bug batch 94 (monitor/pruned_weights.py)
    pruned_weight_regrowth=lambda row: (int(row[0]), str(row[1]),
                                        *(float(v) for v in row[2:6])),
    pruned_layers=lambda row: (str(row[0]), str(row[1]), int(row[2]), float(row[3])))
ROW_READERS.update(   # real-bug batch 95 (monitor/scoped_loaders.py)
    scoped_loaders=lambda row: (str(row[0]), *(int(v) for v in row[1:6])),
    stored_data_scales=lambda row: (int(row[0]), str(row[1]), str(row[2]), float(row[3])),
    loader_batch_forwards=lambda row: tuple(int(v) for v in row[:3]))


def _pretrained_norm_input(row):   # real-bug batch 73
    def number(v):
        return None if v is None else float(v)
    name, order, channels, training, shift, log_ratio, turned = row
    return (str(name), int(order), int(channels), bool(training), number(shift),
            number(log_ratio), None if turned is None else [number(v) for v in turned])


ROW_READERS.update(pretrained_norm_inputs=_pretrained_norm_input)   # real-bug batch 73
ROW_READERS.update(loss_weights=lambda row: (int(row[0]), float(row[1])))   # real-bug batch 74


def _validation_row_match(row):   # real-bug batch 46
    batch, rows, matched, distinct, kept, values = row
    return int(batch), int(rows), int(matched), int(distinct), int(kept), int(values)


def _training_input_sign(row):   # VALIDATION_INPUTS_RESCALED (core variants 7)
    step, negative = row
    return int(step), float(_number(negative))


def _row_standardised_input(row):   # real-bug batch 46
    step, rows, features, standardised, share = row
    return int(step), int(rows), int(features), int(standardised), float(share)


ROW_READERS.update(validation_row_matches=_validation_row_match,   # real-bug batch 46
                   row_standardised_inputs=_row_standardised_input)
ROW_READERS.update(training_input_signs=_training_input_sign)   # core variants 7


def _split_size(row):   # real-bug batch 268
    return tuple(int(n) for n in row)


ROW_READERS.update(split_sizes=_split_size)   # real-bug batch 268


def _constant_decoder_input(row):
    step, index, shape, value, spread = row
    return int(step), int(index), tuple(int(n) for n in shape), float(value), float(spread)


ROW_READERS.update(constant_decoder_inputs=_constant_decoder_input)   # real-bug batch 49


def _in_place_skip(row):
    step, block, kind, activation = row
    return int(step), str(block), str(kind), str(activation)


def _shared_norm_site(row):
    step, norm, calls, gap, ratio = row
    return int(step), str(norm), int(calls), float(gap), float(ratio)


ROW_READERS.update(in_place_skips=_in_place_skip,   # real-bug batch 43
                   shared_norm_sites=_shared_norm_site)


def _aliased_state_load(row):
    step, own, compared = row
    return int(step), int(own), int(compared)


def _resumed_optimizer(row):
    step, optimizer, before, after, schedulers = row
    return (int(step), str(optimizer), bool(before), bool(after),
            [[str(kind), int(calls)] for kind, calls in schedulers])


ROW_READERS.update(aliased_state_loads=_aliased_state_load,
                   resumed_optimizers=_resumed_optimizer)   # real-bug batch 33


def _validation_set(row):
    step, rows, total, squares = row
    return int(step), int(rows), float(_number(total)), float(_number(squares))


ROW_READERS.update(validation_sets=_validation_set)   # OVERFITTING on one validation set


def _reparameterisation(row):
    step, draws, unpenalised, variance_scaled = row
    return int(step), int(draws), int(unpenalised), int(variance_scaled)


ROW_READERS.update(reparameterisations=_reparameterisation)   # real-bug batch 37


def _random_rnn_state(call):
    """One call of ``monitor/random_states.py`` (a dict; every key is needed by the rule)."""
    return {"module_type": str(call["module_type"]), "layer": str(call["layer"]),
            "file": str(call["file"]), "line": int(call["line"]), "call": str(call["call"])}


DRAWS_ARRAY = "observed.validation_draws.{}"


def _encode_validation_draws(observed, arrays):
    """{"validation_draws": [step of each draw]}, the draws' rows put in ``arrays``; bounded
    as the monitor bounds them (the first passes, their first rows); {} without ``arrays``."""
    if arrays is None:
        return {}
    from .monitor.validation_draws import DRAW_ROWS, PASSES_KEPT
    steps = []
    for i, (step, rows) in enumerate(observed.validation_draws[:PASSES_KEPT]):
        arrays[DRAWS_ARRAY.format(i)] = _compact(np.asarray(rows)[:DRAW_ROWS])
        steps.append(int(step))
    return {"validation_draws": steps}


def _compact(rows):
    """float32 when it holds every value exactly (inputs arrive as float32 or narrower and
    the monitor widens them to float64), else float64: half the bytes, the same values."""
    narrow = rows.astype(np.float32)
    return narrow if np.array_equal(narrow, rows, equal_nan=True) else rows.astype(np.float64)


def _decode_validation_draws(steps, arrays):
    draws = []
    for i, step in enumerate(steps or []):
        rows = arrays[DRAWS_ARRAY.format(i)]
        if rows.ndim != 2 or rows.dtype.kind != "f":
            raise ValueError(f"validation draw {i} is not a 2-D float array ({rows.dtype}, "
                             f"shape {rows.shape})")
        draws.append((int(step), rows.astype(np.float64)))
    return draws


def _window_overlap(data):
    """``monitor/window_overlap.compare``'s summary from its JSON form (None: not compared)."""
    if data is None:
        return None
    return {"rows": int(data["rows"]), "train_rows": int(data["train_rows"]),
            "exact": int(data["exact"]),
            "shifted": [(int(axis), int(shift), int(matched))
                        for axis, shift, matched in data["shifted"]]}


def _encode_records(records, arrays):
    scalar_keys, scalar_index = [], {}
    vector_keys, vector_index = [], {}

    def key_of(keys, index, key):
        if key not in index:
            index[key] = len(keys)
            keys.append(list(key))
        return index[key]

    scalars = []                    # (record, key, value)
    # numbers and flags (bool) in two columns of their own: [entries, chunks, offset]
    packed = {False: [[], [], 0], True: [[], [], 0]}
    for i, r in enumerate(records):
        for layer, stats in r.activations.items():
            for stat, value in stats.items():
                scalars.append((i, key_of(scalar_keys, scalar_index, ("activation", layer, stat)),
                                float(value)))
        for stat, value in r.inputs.items():
            scalars.append((i, key_of(scalar_keys, scalar_index, ("input", stat)), float(value)))
        vectors = [((name,), getattr(r, name)) for name in PER_PARAMETER + ("output",)]
        vectors.append((("lrs",), np.asarray(r.lrs, dtype=float)))
        vectors.extend((("dead", layer), mask) for layer, mask in r.dead_units.items())
        for key, value in vectors:
            if value is None:
                continue
            flag = key[0] in BOOLEAN_VECTORS
            value = np.asarray(value, dtype=bool if flag else float)
            shape = value.shape if value.ndim == 2 else (value.size, -1)
            column = packed[flag]
            column[0].append((i, key_of(vector_keys, vector_index, key), column[2], *shape))
            column[1].append(value.reshape(-1))
            column[2] += value.size
    table = np.zeros((len(records), len(scalar_keys)))
    present = np.zeros((len(records), len(scalar_keys)), dtype=bool)
    for i, k, value in scalars:
        table[i, k], present[i, k] = value, True
    arrays["records.step"] = np.array([r.step for r in records], dtype=np.int64)
    arrays["records.backward"] = np.array([bool(r.backward) for r in records], dtype=bool)
    arrays["records.judged"] = np.array([bool(getattr(r, "judged", True)) for r in records],
                                        dtype=bool)
    arrays["records.scalars"], arrays["records.scalars_present"] = table, present
    for flag, name in ((False, "vectors"), (True, "flags")):
        entries, chunks, _ = packed[flag]
        arrays[f"records.{name}.data"] = np.concatenate(chunks) if chunks else \
            np.zeros(0, dtype=bool if flag else float)
        arrays[f"records.{name}.index"] = np.array(entries, dtype=np.int64).reshape(-1, 5)
    return {"scalar_keys": scalar_keys, "vector_keys": vector_keys,
            "eval_layers": [list(r.eval_layers) for r in records]}


def _encode_histograms(histograms, arrays):
    layers, index = [], {}
    entries, chunks, offset = [], [], 0
    for i, (_, per_layer) in enumerate(histograms):
        for layer, (counts, edges) in per_layer.items():
            if layer not in index:
                index[layer] = len(layers)
                layers.append(layer)
            counts, edges = np.asarray(counts, dtype=float), np.asarray(edges, dtype=float)
            entries.append((i, index[layer], offset, counts.size, edges.size))
            chunks.extend([counts.reshape(-1), edges.reshape(-1)])
            offset += counts.size + edges.size
    arrays["histograms.step"] = np.array([s for s, _ in histograms], dtype=np.int64)
    arrays["histograms.data"] = np.concatenate(chunks) if chunks else np.zeros(0)
    arrays["histograms.index"] = np.array(entries, dtype=np.int64).reshape(-1, 5)
    return {"layers": layers}


def decode(header, arrays, where="the saved run", max_bytes="saved"):
    """(BoundedRun, [Finding]) from ``encode``'s output; RunFileError when parts are missing.

    ``max_bytes``: the budget of the run built ("saved": the one it was saved with)."""
    try:
        history = header["history"]
        budget = history["max_bytes"] if max_bytes == "saved" else max_bytes
        run = BoundedRun(
            framework=str(header["framework"]), has_optimizer=bool(header["has_optimizer"]),
            params=[ParamInfo(p["name"], tuple(p["shape"]), bool(p["trainable"]), p["in_optimizer"],
                              p.get("times_in_optimizer"))
                    for p in header["params"]],
            layers=[LayerInfo(l["name"], l["type"], l["kind"]) for l in header["layers"]],
            n_steps=int(header["n_steps"]), settings=dict(header["settings"]), max_bytes=budget)
        for which in ("train", "val"):
            run.curve(which).load(arrays[f"loss.{which}.steps"], arrays[f"loss.{which}.values"],
                                  arrays[f"loss.{which}.buckets"], header["curves"][which]["width"])
        run.records = _decode_records(header["records"], arrays)
        run.histograms = _decode_histograms(header["histograms"], arrays)
        run.observed = decode_observed(header.get("observed") or {}, arrays)
        run.fingerprints = [float(v) for v in arrays.get("fingerprints", ())]
        if header.get("ranks") is not None:
            run.ranks = rank_records.from_plain(header["ranks"])
        run._record_grid = int(history["record_grid"])
        run._histogram_grid = int(history["histogram_grid"])
        run._extra_grid = int(history.get("extra_grid", 1))
        run.compactions = int(history["compactions"])
        findings = [finding_from_dict(f) for f in header["findings"]]
    except (KeyError, IndexError, TypeError, ValueError) as error:
        raise RunFileError(f"{where} is damaged: {type(error).__name__} {error} while reading it; "
                           f"save the run again (mon.save) or use an earlier copy") from None
    return run, findings


def _decode_records(meta, arrays):
    steps, backward = arrays["records.step"], arrays["records.backward"]
    records = [StepRecord(step=int(s), backward=bool(b)) for s, b in zip(steps, backward)]
    judged = arrays.get("records.judged")
    for record, flag in zip(records, [] if judged is None else judged):
        if not flag:
            record.judged = False      # (only set when False: records.py may predate the flag)
    scalar_keys = [tuple(k) for k in meta["scalar_keys"]]
    table, present = arrays["records.scalars"], arrays["records.scalars_present"]
    for i, record in enumerate(records):
        for k in np.flatnonzero(present[i]):
            key = scalar_keys[k]
            if key[0] == "activation":
                record.activations.setdefault(key[1], {})[key[2]] = float(table[i, k])
            else:
                record.inputs[key[1]] = float(table[i, k])
        record.eval_layers = list(meta["eval_layers"][i])
    vector_keys = [tuple(k) for k in meta["vector_keys"]]
    rows = [(arrays["records.vectors.data"], row)
            for row in arrays["records.vectors.index"].tolist()]
    if "records.flags.index" in arrays:           # version 2: the boolean vectors apart
        rows += [(arrays["records.flags.data"], row)
                 for row in arrays["records.flags.index"].tolist()]
    for data, (i, k, offset, first, second) in rows:
        key = vector_keys[k]
        size = first if second < 0 else first * second
        value = data[offset:offset + size]
        if len(value) != size:
            raise ValueError(f"record data shorter than its index says ({key[0]})")
        value = value.reshape(first, second) if second >= 0 else value.copy()
        if key[0] in BOOLEAN_VECTORS:
            value = value.astype(bool)
        record = records[i]
        if key[0] == "dead":
            record.dead_units[key[1]] = value
        elif key[0] == "lrs":
            record.lrs = [float(v) for v in value]
        else:
            setattr(record, key[0], value)
    return records


def _decode_histograms(meta, arrays):
    layers, data = meta["layers"], arrays["histograms.data"]
    out = [(int(s), {}) for s in arrays["histograms.step"]]
    for i, k, offset, n_counts, n_edges in arrays["histograms.index"].tolist():
        counts = data[offset:offset + n_counts]
        edges = data[offset + n_counts:offset + n_counts + n_edges]
        if len(edges) != n_edges:
            raise ValueError("histogram data shorter than its index says")
        out[i][1][layers[k]] = (counts.astype(np.int64), edges.copy())
    return out


def finding_from_dict(d):
    evidence = {k: _number(v) for k, v in dict(d.get("evidence") or {}).items()}
    step = d.get("step")
    return Finding(str(d["code"]), str(d["severity"]), str(d.get("where") or ""),
                   None if step is None else int(step), str(d.get("message") or ""), evidence,
                   str(d.get("fix") or ""))


def _number(value):
    """Undo ``plain``'s strings for non-finite numbers (inside lists and dicts too)."""
    if isinstance(value, str):
        return _NUMBERS.get(value, value)
    if isinstance(value, list):
        return [_number(v) for v in value]
    if isinstance(value, dict):
        return {k: _number(v) for k, v in value.items()}
    return value


def _nndebug_version():
    from . import __version__
    return __version__


# ============================================================================================
# the file: a ZIP of a JSON header and .npy arrays, written atomically
# ============================================================================================
def write(path, header, arrays):
    """Write the run file at ``path`` atomically (temporary file, fsync, os.replace).

    The temporary file is ``.<name>.<pid>-<random>.tmp`` beside ``path``: unique, so two
    writers never share one, and named after its process, so that the next save removes
    what a killed process left (``remove_stale_temporaries``)."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    name = os.path.basename(path)
    if not name or os.path.isdir(path):
        raise IsADirectoryError(f"cannot save the run to {path}: it is a folder; give a file "
                                f"name such as {os.path.join(path, 'run.nndebug')}")
    os.makedirs(folder, exist_ok=True)   # as plot() and save_html() do
    remove_stale_temporaries(folder, name)
    descriptor, temporary = tempfile.mkstemp(prefix=f".{name}.{os.getpid()}-", suffix=".tmp",
                                             dir=folder)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            with zipfile.ZipFile(handle, "w", zipfile.ZIP_STORED) as archive:
                archive.writestr(HEADER, json.dumps(header, allow_nan=False),
                                 compress_type=zipfile.ZIP_DEFLATED)
                for member_name, array in arrays.items():
                    with archive.open(f"{ARRAYS}{member_name}.npy", "w",
                                      force_zip64=True) as member:
                        np.lib.format.write_array(member, np.ascontiguousarray(array),
                                                  allow_pickle=False)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        try:
            os.remove(temporary)
        except OSError:
            pass
        raise
    _sync_folder(folder)
    return path


def remove_stale_temporaries(folder, name):
    """Remove the temporary files that writers of ``name`` killed mid-save left in ``folder``
    (SIGKILL, power loss: no ``except`` ran). Only names of ``write``'s own pattern for this
    file, and only those of a process that no longer runs: a save in progress elsewhere keeps
    its file. Returns the paths removed."""
    pattern = re.compile(re.escape(f".{name}.") + r"(\d+)-[A-Za-z0-9_]+\.tmp\Z")
    removed = []
    try:
        entries = os.listdir(folder)
    except OSError:
        return removed
    for entry in entries:
        match = pattern.match(entry)
        if match is None or _process_alive(int(match.group(1)), os.path.join(folder, entry)):
            continue
        try:
            os.remove(os.path.join(folder, entry))
            removed.append(os.path.join(folder, entry))
        except OSError:
            pass          # gone already (another writer cleaned it), or not ours to remove
    return removed


def _process_alive(pid, temporary):
    """Whether the process that wrote ``temporary`` may still be writing it."""
    if pid == os.getpid():
        return False      # this process writes one file at a time: an older one is a leftover
    if os.name == "posix":
        try:
            os.kill(pid, 0)            # signal 0: only asks whether the process exists
        except ProcessLookupError:
            return False
        except OSError:
            return True                # it exists (another user's process)
        return True
    try:                               # elsewhere: a temporary untouched for an hour is stale
        return time.time() - os.path.getmtime(temporary) < 3600
    except OSError:
        return True


def _sync_folder(folder):
    """Make the rename itself durable (POSIX; a no-op where folders cannot be opened)."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def read(path):
    """(header, arrays) of the run file at ``path``; RunFileError with one line on a bad file."""
    shown = os.fspath(path)
    try:
        with open(path, "rb") as handle:
            start = handle.read(30 + len(HEADER))
            handle.seek(0)
            raw = handle.read()
    except FileNotFoundError:
        raise RunFileError(f"no saved run at {shown}: the file does not exist (write one with "
                           f"mon.save(path) or nndebug.watch(..., save_to=path))") from None
    except IsADirectoryError:
        raise RunFileError(f"{shown} is a folder, not a saved run (.nndebug file)") from None
    except OSError as error:
        raise RunFileError(f"cannot read {shown}: {error.strerror or error}") from None
    ours = start[:4] == b"PK\x03\x04" and start[30:30 + len(HEADER)] == HEADER.encode()
    if not ours:
        raise RunFileError(f"{shown} is not an nndebug run file (expected a file written by "
                           f"mon.save or watch(save_to=...), found {_describe(start)})")
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
        header = json.loads(archive.read(HEADER))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError, KeyError,
            OSError) as error:
        raise RunFileError(f"{shown} is an incomplete or damaged nndebug run file ({_reason(error)}, "
                           f"{len(raw)} bytes): it was cut short or changed after saving; use "
                           f"an earlier copy") from None
    check_header(header, shown)
    arrays = {}
    try:
        for name in archive.namelist():
            if name.startswith(ARRAYS) and name.endswith(".npy"):
                with archive.open(name) as member:
                    arrays[name[len(ARRAYS):-4]] = np.lib.format.read_array(member,
                                                                            allow_pickle=False)
    except (zipfile.BadZipFile, EOFError, ValueError, OSError) as error:
        raise RunFileError(f"{shown} is a damaged nndebug run file ({_reason(error)}): use an "
                           f"earlier copy") from None
    return header, arrays


def check_header(header, where):
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise RunFileError(f"{where} is not an nndebug run (its header names format "
                           f"{header.get('format') if isinstance(header, dict) else None!r}, "
                           f"expected {FORMAT!r})")
    version = header.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise RunFileError(f"{where} has no valid run-file version (found {version!r}); save the "
                           f"run again")
    if version > VERSION:
        raise RunFileError(f"{where} was written by a newer nndebug (run-file version {version}; "
                           f"this nndebug {_nndebug_version()} reads versions up to {VERSION}): "
                           f"upgrade nndebug to read it")
    if version < 1:
        raise RunFileError(f"{where} has an unknown run-file version {version}")


def _describe(start):
    if not start:
        return "an empty file"
    if start[:4] == b"PK\x03\x04":
        return "a ZIP archive without an nndebug header"
    if start[:6] == b"\x93NUMPY":
        return "a NumPy .npy file"
    if start[:1] in (b"{", b"["):
        return "a JSON file"
    if start[:1] == b"\x80":
        return "a Python pickle"
    return f"a file starting with {start[:8]!r}"


def _reason(error):
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__


# ============================================================================================
# the state dict: the same header and arrays as plain values for a checkpoint
# ============================================================================================
def to_state(header, arrays):
    """{"format", "version", "header", "arrays"}: torch tensors when torch is loaded, else
    {"dtype", "shape", "data"} lists; ``torch.load(weights_only=True)`` reads both."""
    torch = sys.modules.get("torch")
    packed = {}
    for name, array in arrays.items():
        if torch is not None and hasattr(torch, "from_numpy"):
            packed[name] = torch.from_numpy(np.ascontiguousarray(array).copy())
        else:
            packed[name] = {"dtype": str(array.dtype), "shape": list(array.shape),
                            "data": array.reshape(-1).tolist()}
    return {"format": FORMAT, "version": VERSION, "header": header, "arrays": packed}


def from_state(state):
    """(header, arrays) from ``to_state``'s dict (as torch.load gives it back)."""
    if not isinstance(state, dict) or state.get("format") != FORMAT or "header" not in state:
        found = sorted(state)[:6] if isinstance(state, dict) else type(state).__name__
        raise RunFileError(f"load_state_dict expects the dict returned by mon.state_dict() "
                           f"(format {FORMAT!r}), got {found}")
    check_header(state["header"], "this monitor state")
    if state.get("version") != state["header"].get("version"):
        raise RunFileError("this monitor state is inconsistent: its version and its header's differ")
    arrays = {}
    for name, value in dict(state.get("arrays") or {}).items():
        if isinstance(value, dict):
            arrays[name] = np.asarray(value["data"], dtype=value["dtype"]).reshape(value["shape"])
        elif hasattr(value, "detach"):
            arrays[name] = value.detach().cpu().numpy()
        else:
            arrays[name] = np.asarray(value)
    return state["header"], arrays


# ============================================================================================
# a saved run, read back
# ============================================================================================
def load_run(path):
    """Read a run saved by ``mon.save(path)`` or ``watch(save_to=path)``: a ``SavedRun``."""
    header, arrays = read(path)
    run, findings = decode(header, arrays, where=os.fspath(path), max_bytes=None)
    return SavedRun(run, findings, header, os.fspath(path))


class SavedRun:
    """A run read from disk: the monitor's findings at save time and its bounded history.

    ``findings()``, ``report()``, ``to_dict()``, ``plot(path)`` and ``save_html(path)`` work
    as on the monitor that saved it.
    """

    def __init__(self, run, findings, header, path=None):
        self.run, self._findings, self.header, self.path = run, sort_findings(findings), header, path

    @property
    def n_steps(self):
        return self.run.n_steps

    @property
    def saved_at(self):
        return self.header.get("saved_at")

    def findings(self):
        return list(self._findings)

    def report(self):
        from .report.text import render
        title = f"saved run {os.path.basename(self.path)}" if self.path else None
        return render(self.run, self.findings(), title=title)

    def to_dict(self):
        from .report.json import run_to_dict
        return run_to_dict(self.run, self.findings())

    def plot(self, path, title=None):
        from .report.plots import plot_dashboard
        return plot_dashboard(self.run, self.findings(), path, title=title)

    def save_html(self, path, title="nndebug report"):
        from .report.html import render_page
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(render_page(self.run, self.findings(), title=title))
        return path

    def __repr__(self):
        return (f"SavedRun({self.path!r}, {self.run.n_steps} steps, {len(self.run.records)} "
                f"records, {len(self._findings)} findings)")


def _pooled_log_probs(row):   # real-bug batch 44
    step, pooled, weighted = row
    return int(step), int(pooled), int(weighted)


def _ppo_ratio(row):   # real-bug batch 44
    step, distance, entries = row
    return int(step), float(distance), int(entries)


ROW_READERS.update(pooled_log_probs=_pooled_log_probs, ppo_ratios=_ppo_ratio)   # real-bug batch 44


def _late_gradients(row):   # real-bug batch 50
    step, empty, late, names = row
    return int(step), int(empty), int(late), [str(name) for name in names]


def _uncleared_gradient(row):   # real-bug batch 50
    step, name, ratio = row
    return int(step), str(name), float(_number(ratio))


ROW_READERS.update(late_gradients=_late_gradients,
                   uncleared_gradients=_uncleared_gradient)   # real-bug batch 50 (loop order)


def _rewritten_weights(row):   # real-bug batch 58 (the scale: batch 143)
    step, jump, left, *scale = row     # runs saved before the scale was kept have three
    return (int(step), float(_number(jump)), float(_number(left))) + \
        tuple(float(_number(value)) for value in scale[:1])


def _self_references(row):   # real-bug batch 58
    step, equal, compared = row
    return int(step), int(equal), int(compared)


ROW_READERS.update(rewritten_weights=_rewritten_weights,
                   self_references=_self_references)   # real-bug batch 58 (copies)


def _swapped_loss_argument(row):   # real-bug batch 52
    step, name = row
    return int(step), str(name)


def _squashed_score_terms(row):   # real-bug batch 52
    step, terms = row
    return int(step), int(terms)


ROW_READERS.update(swapped_loss_arguments=_swapped_loss_argument,
                   squashed_score_terms=_squashed_score_terms)   # real-bug batch 52


def _repeated_output_calls(row):   # real-bug batch 269
    step, pairs = row
    return int(step), [(str(a), str(b), str(kind)) for a, b, kind in pairs]


ROW_READERS.update(repeated_output_calls=_repeated_output_calls)   # real-bug batch 269


def _soft_target_agreement(row):   # real-bug batch 55
    step, agreement, classes, rows = row
    return int(step), float(_number(agreement)), int(classes), int(rows)


def _foreign_norm_statistics(row):   # real-bug batch 55
    kind, features, tracked, at_init = row
    return str(kind), int(features), int(tracked), bool(at_init)


def _foreign_train_dropout(row):   # real-bug batch 55
    kind, p, read, changed = row
    return str(kind), float(_number(p)), int(read), int(changed)


def _outside_parameter(row):   # real-bug batches 155/161
    kind, shape, held, changed = row
    return str(kind), [int(n) for n in shape], bool(held), bool(changed)


ROW_READERS.update(outside_parameters=_outside_parameter)
ROW_READERS.update(soft_target_agreement=_soft_target_agreement,
                   foreign_norm_statistics=_foreign_norm_statistics,
                   foreign_train_dropouts=_foreign_train_dropout)   # real-bug batch 55


def _derivative_call(row):   # real-bug batch 56
    step, order, wrt, create_graph, zero, repeats, rank = row
    return int(step), int(order), str(wrt), bool(create_graph), bool(zero), bool(repeats), \
        int(rank)


def _per_position_gradient_norm(row):   # real-bug batch 56
    step, rank, reduced, per_sample = row
    return int(step), int(rank), int(reduced), int(per_sample)


ROW_READERS.update(derivative_calls=_derivative_call,
                   per_position_gradient_norms=_per_position_gradient_norm)   # real-bug batch 56
ROW_READERS.update(derivative_reach=lambda row: tuple(int(v) for v in row[:3]))   # batch 336


def _single_value_norm(row):   # real-bug batch 60
    step, kind, names, groups, channels, per_group = row
    return (int(step), str(kind), [str(name) for name in names], int(groups), int(channels),
            int(per_group))


def _dropout_output(row):   # real-bug batch 60
    step, layer, p = row
    return int(step), str(layer), float(_number(p))


def _unchanged_running_buffer(row):   # real-bug batch 60
    layer, names, calls, changed = row
    return str(layer), [str(name) for name in names], int(calls), bool(changed)


def _soft_target_padding(row):   # real-bug batch 60
    step, loss, reduction, shape, mode, share, in_runs, others = row
    return (int(step), str(loss), str(reduction), [int(n) for n in shape], float(_number(mode)),
            float(_number(share)), float(_number(in_runs)), float(_number(others)))


ROW_READERS.update(single_value_norms=_single_value_norm, dropout_outputs=_dropout_output,
                   unchanged_running_buffers=_unchanged_running_buffer,
                   soft_target_padding=_soft_target_padding)   # real-bug batch 60


def _category_code_column(row):   # real-bug batch 63
    column, codes, rows, low, high, between, unordered, variance = row
    return (int(column), int(codes), int(rows), float(low), float(high), float(between),
            float(unordered), float(variance))


def _embedding_field_range(row):   # real-bug batch 63
    layer, fields, rows, boundaries, touching, overlapping, shared = row
    return (str(layer), int(fields), int(rows), int(boundaries), int(touching),
            int(overlapping), [(int(f), int(i)) for f, i in shared])


def _frozen_table_probe(row):   # real-bug batch 63
    layer, samples, classes, at_zero, shift, shifted, ids, majority = row
    return (str(layer), int(samples), int(classes), float(at_zero), int(shift),
            float(shifted), None if ids is None else float(ids), float(majority))


def _rounded_input_column(row):   # real-bug batch 61
    step, dtype, rows, varied, rounded, column, mean, std, spacing = row
    return int(step), str(dtype), int(rows), int(varied), int(rounded), int(column), \
        float(mean), float(std), float(spacing)


def _wrapped_input_level(row):   # real-bug batch 61
    step, rows, span, shift, plain, shifted = row
    return int(step), int(rows), int(span), int(shift), float(plain), float(shifted)


def _validation_target_kind(row):   # real-bug batch 61
    kind, step, loss, dtype, values, share = row
    return str(kind), int(step), str(loss), str(dtype), int(values), float(share)


ROW_READERS.update(rounded_input_columns=_rounded_input_column,   # real-bug batch 61
                   wrapped_input_levels=_wrapped_input_level,
                   validation_target_kinds=_validation_target_kind)


ROW_READERS.update(category_code_columns=_category_code_column,   # real-bug batch 63
                   embedding_field_ranges=_embedding_field_range,
                   frozen_table_probes=_frozen_table_probe)
ROW_READERS.update(scattered_messages=lambda row: tuple(int(v) for v in row),   # batch 66
                   feature_axis_readouts=lambda row: (int(row[0]), str(row[1]),
                                                      [int(n) for n in row[2]]))
ROW_READERS.update(trained_loss_nodes=lambda row: (int(row[0]), bool(row[1])))   # batch 72
ROW_READERS.update(tiny_norm_batches=lambda row: (int(row[0]), str(row[1]), int(row[2]),
                                                  int(row[3])))   # core variants
ROW_READERS.update(mask_placement_rows=lambda row: (   # masks moved apart from their images
    *(int(v) for v in row[:4]), str(row[4]), *(int(v) for v in row[5:7])))
ROW_READERS.update(target_offset_rows=lambda row: (   # inputs and targets cropped apart
    *(int(v) for v in row[:5]), str(row[5]), *(int(v) for v in row[6:8])))
ROW_READERS.update(mixup_partner_rows=lambda row: tuple(int(v) for v in row),   # batch 76
                   augmented_target_rows=lambda row: (*(int(v) for v in row[:5]),
                                                      float(row[5])))
ROW_READERS.update(fragile_operations=lambda row: (int(row[0]), str(row[1]), str(row[2]),
                                                  str(row[3])))   # batch 92
ROW_READERS.update(unguarded_logs=lambda row: (int(row[0]), str(row[1]), str(row[2])),   # batch 75
                   picked_probability_losses=lambda row: (
                       int(row[0]), str(row[1]), str(row[2]), int(row[3]),
                       None if row[4] is None else int(row[4]),
                       None if row[5] is None else int(row[5])),
                   class_mean_losses=lambda row: tuple(int(v) for v in row),
                   empty_overlap_targets=lambda row: tuple(int(v) for v in row))
ROW_READERS.update(batch_totals_in_terms=lambda row: (   # real-bug batch 83
    int(row[0]), [int(n) for n in row[1]], str(row[2]), [int(n) for n in row[3]]))
ROW_READERS.update(posterior_draws=lambda row: (   # real-bug batch 91
    int(row[0]), [[float(d[0]), float(d[1]), int(d[2]), int(d[3])] for d in row[1]],
    int(row[2])))
ROW_READERS.update(soft_target_gradients=lambda row: tuple(int(v) for v in row),   # batch 85
                   self_masked_targets=lambda row: tuple(int(v) for v in row))
ROW_READERS.update(eval_mode_accumulations=lambda row: (   # real-bug batch 102
    int(row[0]), str(row[1]), int(row[2])),
    eval_mode_step_bursts=lambda row: tuple(int(v) for v in row))
ROW_READERS.update(module_backwards=lambda row: (str(row[0]), str(row[1])))   # batch 107
ROW_READERS.update(placeholder_points=lambda row: (   # real-bug batch 115
    int(row[0]), str(row[1]), int(row[2]), int(row[3]), int(row[4]), bool(row[5]), int(row[6]),
    [float(v) for v in row[7]]))
ROW_READERS.update(random_projections=lambda row: (   # real-bug batch 113
    str(row[0]), str(row[1]), int(row[2]), str(row[3])))
ROW_READERS.update(closure_steps=lambda row: (int(row[0]),))   # real-bug batch 116
ROW_READERS.update(negative_rates=lambda row: (int(row[0]), int(row[1]), float(row[2])))
ROW_READERS.update(stopped_rates=lambda row: (int(row[0]), float(row[1])))   # batch 284
ROW_READERS.update(softmax_read_as_logits=lambda row: (int(row[0]),))   # real-bug batch 124
ROW_READERS.update(ranked_losses=lambda row: (int(row[0]),))   # real-bug batch 135
ROW_READERS.update(channel_scales=lambda row: (   # real-bug batch 138
    int(row[0]), int(row[1]), [float(v) for v in row[2]], [float(v) for v in row[3]]))
ROW_READERS.update(soft_cross_entropies=lambda row: (   # real-bug batch 192
    int(row[0]), float(row[1]), float(row[2]), float(row[3])))
ROW_READERS.update(sample_normalised_inputs=lambda row: (   # real-bug batch 172
    *(int(v) for v in row),))
ROW_READERS.update(restored_checkpoints=lambda row: (   # real-bug batch 139
    str(row[0]), int(row[1]), [float(v) for v in row[2]]))
ROW_READERS.update(head_rows=lambda row: (   # real-bug batch 131
    int(row[0]), str(row[1]), int(row[2]), [int(v) for v in row[3]], int(row[4])))
ROW_READERS.update(handwritten_errors=lambda row: (   # real-bug batch 126
    int(row[0]), int(row[1]), str(row[2]), float(row[3]), float(row[4])))
ROW_READERS.update(forwards_after_training=lambda row: (   # real-bug batches 105/114
    int(row[0]), int(row[1]), int(row[2]), int(row[3]), bool(row[4]), int(row[5]), bool(row[6]),
    int(row[7]), int(row[8]),
    *(int(v) for v in row[9:11])))       # batch 263's two dropout counts (older files: none)


def _window_border(row):
    step, time_axis, streams, first, last, states = row
    return (int(step), int(time_axis), int(streams), [int(v) for v in first],
            [int(v) for v in last], [(str(layer), str(kind)) for layer, kind in states])


ROW_READERS.update(window_borders=_window_border)   # real-bug batches 170/283
ROW_READERS.update(norms_at_findings=lambda row: (   # real-bug batch 325
    int(row[0]), float(row[1])))
ROW_READERS.update(backward_passes=lambda row: (   # real-bug batch 330
    int(row[0]), int(row[1])))
ROW_READERS.update(mask_indexes=lambda row: (   # real-bug batch 351
    int(row[0]), str(row[1]), int(row[2]), str(row[3])))

"""Long runs: a history under a memory budget, saved while training, resumed from checkpoints.

    mon = nd.watch(model, opt, max_history_mb=64,          # the history never grows above this
                   save_to="run.nndebug", save_every_s=60)  # atomic saves while it trains
    ...
    mon.save("now.nndebug")                                 # on demand, the same format
    nd.load_run("run.nndebug").report()                     # or: nndebug report run.nndebug

Resuming: the monitor's state goes into the checkpoint beside the model and optimizer. It
holds only strings, numbers, lists, dicts and tensors, so ``torch.load`` reads it with its
safe default (``weights_only=True``):

    torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(),
                "nndebug": mon.state_dict()}, "checkpoint.pt")
    # ... the process is killed; a new one starts:
    checkpoint = torch.load("checkpoint.pt")
    model.load_state_dict(checkpoint["model"])
    opt.load_state_dict(checkpoint["optimizer"])
    mon = nd.watch(model, opt, save_to="run.nndebug")
    mon.load_state_dict(checkpoint["nndebug"])    # before the first step(): one history

After ``load_state_dict`` the step numbers continue where the saved run stopped, and the
rules see the whole run: the curve, the records, what the monitor observed around the model
(loss calls, unregistered parts, frozen tensors, ...) and the batch fingerprints, so the
findings are those of the same run uninterrupted. What the probes found (they run once,
early) is kept as it was.

Distributed runs (torch.distributed, one process per rank): every rank runs the same
script, so every rank gets the same ``save_to``. Rank 0 writes that path; rank ``r > 0``
writes ``<stem>.rank<r><suffix>`` beside it (``run.nndebug`` -> ``run.rank1.nndebug``), so
no rank overwrites another's run and each file holds that rank's own history and findings
(merged with what the other ranks reported). ``mon.save(path)`` writes exactly the path it
is given.

What is kept under the budget: ``nndebug.history``. The file format: ``nndebug.runfile``.
The work happens in one sink (``LongRun``) that the monitor adds to its sinks, so its cost
is part of the monitor's measured time budget.
"""
import math
import os
import sys

from .. import runfile, validation
from ..findings import Finding
from ..history import DEFAULT_MAX_HISTORY_MB, budget_bytes
from .sinks import Sink

DEFAULT_SAVE_EVERY_S = 60


def check_options(max_history_mb, save_to, save_every_s):
    """The history budget in bytes; a clear error for a bad option."""
    if save_to is not None and not isinstance(save_to, (str, os.PathLike)):
        raise TypeError(f"save_to must be a file path (str or os.PathLike) or None, got "
                        f"{type(save_to).__name__}")
    if save_to is not None:
        validation.path(save_to, "save_to", "run.nndebug")      # not a folder
    if isinstance(save_every_s, bool) or not isinstance(save_every_s, (int, float)) \
            or not math.isfinite(save_every_s) or save_every_s < 0:
        raise ValueError(f"save_every_s must be a number of seconds >= 0 (the least time between "
                         f"two saves while training), got {save_every_s!r}")
    return budget_bytes(max_history_mb)



# the lists of ``run.observed`` a resumed monitor continues (``LongRun.adopt_observed``): the
# saved rows first, this monitor's after them
CONTINUED = ("loss_calls", "warnings", "norm_batches", "graph_nodes", "leaf_losses", "batch_rows",
             "padding_lookups", "loss_terms",
             "carried_eval_gradients", "repeated_optimizer_steps",
             "eval_mode_accumulations", "eval_mode_step_bursts",   # real-bug batch 102
             "optimizer_starts", "seed_calls", "validation_inputs", "unannounced_evaluations",
             "shared_optimizers",
             "validation_draws",
             # what the graph walks and hooks of the first recorded steps saw
             "whole_batch_norms", "nonfinite_births", "loss_reductions",
             "self_additions", "detached_terms", "stacked_linears",
             "policy_gradient_terms", "entropy_terms", "feature_moments",
             "joint_scaling", "signed_targets", "token_id_shares",
             "propagation_matrices", "squashed_batch_sums", "reversed_concatenations",
             "straight_through_cancellations", "outer_differences",
             "parameter_penalties", "penalty_decays", "summed_errors", "other_turn_gradients",
             "reparameterisations",
             "whole_batch_overlaps", "ctc_blank_targets",
             # validation passes' fingerprints, loads of the model's own tensors,
             # what the first step after each earlier resume saw
             "validation_sets", "aliased_state_loads", "resumed_optimizers")
CONTINUED += ("visible_targets", "order_blind_outputs",
              "cross_document_reads")   # real-bug batch 40 (first token calls)
CONTINUED += ("one_unit_softmaxes", "transposing_reshapes")   # real-bug batch 41 (graph walks)
CONTINUED += ("ctc_alignments",)   # real-bug batch 89 (first CTC calls)
CONTINUED += ("category_id_shares",)   # real-bug batch 273 (first categorical lookups)
CONTINUED += ("multiplied_skips", "head_softmaxes",
              "patch_grid_reshapes")   # real-bug batch 57 (forward walk)
CONTINUED += ("target_column_scales",)   # real-bug batch 42 (first regression loss calls)
CONTINUED += ("box_corner_orders",)   # real-bug batch 262 (the same calls' 4-column targets)
CONTINUED += ("maximised_probabilities",   # real-bug batch 68 (loss graph, first steps)
              "loss_hinges", "narrow_lookups")
CONTINUED += ("trained_loss_nodes",)   # real-bug batch 72 (loss graph, first steps)
CONTINUED += ("null_condition_lookups",)   # real-bug batch 120 (first training lookups)
CONTINUED += ("near_zero_divisors",)   # real-bug batch 42 (a loss's divisors, first steps)
CONTINUED += ("target_value_matches",)   # real-bug batch 42 (first training batches)
CONTINUED += ("diffusion_noise_levels",)   # real-bug batch 71 (first training batches)
CONTINUED += ("conflicting_label_rows",)   # real-bug batch 45 (first training batches)
CONTINUED += ("class_only_padding",   # real-bug batch 65 (first training batches,
              "position_losses")   # first recorded steps' loss calls)
CONTINUED += ("attention_scales",)   # real-bug batch 79 (first recorded steps' attention)
CONTINUED += ("uniform_attention",)   # real-bug batch 101 (first recorded steps' attention)
CONTINUED += ("in_place_skips", "shared_norm_sites")   # real-bug batch 43 (first steps' hooks)
CONTINUED += ("start_parameter_values",   # real-bug batch 64 (read when watch first started,
              "in_place_inputs")   # first recorded steps' hooks)
CONTINUED += ("zero_start_parameters",)   # real-bug batch 82 (read when watch first started)
CONTINUED += ("one_signed_start_parameters",)   # real-bug batch 247 (read when watch first started)
CONTINUED += ("input_gradient_passes",)   # real-bug batch 87 (recorded steps' hooks)
CONTINUED += ("recomputed_segments",)   # real-bug batch 88 (first recorded steps)
CONTINUED += ("unloaded_checkpoints",)   # real-bug batch 90 (watch start and close)
CONTINUED += ("averaged_copies",)   # real-bug batch 96 (watch start and close)
CONTINUED += ("pruned_weight_regrowth",)   # real-bug batch 94 (every optimizer step)
CONTINUED += ("scoped_loaders", "stored_data_scales",   # real-bug batch 95 (watch start,
              "loader_batch_forwards")   # a doubling ruler, close; first recorded steps)
CONTINUED += ("pretrained_norm_inputs",)   # real-bug batch 73 (first recorded step's hooks)
CONTINUED += ("loss_weights",)   # real-bug batch 74 (first recorded steps' loss calls)
CONTINUED += ("single_value_norms", "dropout_outputs",
              "soft_target_padding")   # real-bug batch 60 (first steps' walk, hooks, calls)
CONTINUED += ("soft_target_agreement",)   # real-bug batch 55 (recorded steps' loss pairs)
# the row lists read once, when watch first started: a resumed run keeps the saved rows (the
# start of the whole run), this monitor's own only when nothing was saved
FIRST_START = ("output_row_norms",)   # real-bug batch 156 (the output layer's rows)
# the row lists each monitor reads anew (at watch start or at findings): not continued
READ_ANEW = ("module_freeze_flags", "soft_target_rows", "repeated_modules", "lr_multipliers",
             "slow_group_weights")
READ_ANEW += ("validation_row_matches",)   # real-bug batch 46 (compared at findings)
READ_ANEW += ("split_sizes",)   # real-bug batch 268 (counted at findings)
FIRST_START += ("norms_at_findings",)   # real-bug batch 325: the saved run's last reading
                                        # stands until this monitor's first findings
CONTINUED += ("backward_passes",)   # real-bug batch 330 (first recorded steps: bounded)
READ_ANEW += ("rewritten_weights",)   # real-bug batch 58 (read at findings)
READ_ANEW += ("weights_on_grid",)   # real-bug batch 106 (read at findings)
READ_ANEW += ("pruned_layers",)   # real-bug batch 94 (prune masks read at close)
CONTINUED += ("carried_state",)   # real-bug batch 100 (read once, at the first step)
CONTINUED += ("update_fits",)   # real-bug batch 99 (the first steps' updates, fitted at findings)
READ_ANEW += ("identical_units",)   # real-bug batch 80 (read at watch start and findings)
READ_ANEW += ("turned_off_parameters",)   # real-bug batch 81 (read at findings)
READ_ANEW += ("unchanged_running_buffers",)   # real-bug batch 60 (compared at findings)
READ_ANEW += ("module_backwards",)   # real-bug batch 107 (read at findings)
READ_ANEW += ("random_projections",)   # real-bug batch 113 (read at watch start)
CONTINUED += ("placeholder_points",)   # real-bug batch 115 (first recorded loss calls)
READ_ANEW += ("forwards_after_training",)   # real-bug batches 105/114 (written at close)
CONTINUED += ("closure_steps",)   # real-bug batch 116 (the first steps given a closure)
CONTINUED += ("negative_rates",)   # real-bug batch 123 (the first step with a rate below 0)
FIRST_START += ("stopped_rates",)   # real-bug batch 284: a stretch at zero that ran on over a
                                    # resume began before it (a new one: this monitor's row)
CONTINUED += ("softmax_read_as_logits",)   # real-bug batch 124 (probabilities as logits)
CONTINUED += ("handwritten_errors",)   # real-bug batch 126 (bounded: ROWS_KEPT)
CONTINUED += ("head_rows",)   # real-bug batch 131 (the first records only)
CONTINUED += ("ranked_losses",)   # real-bug batch 135 (bounded: ROWS_KEPT)
READ_ANEW += ("restored_checkpoints",)   # real-bug batch 139 (written at findings)
READ_ANEW += ("channel_scales",)   # real-bug batch 138 (read at findings)
READ_ANEW += ("foreign_norm_statistics",
              "foreign_train_dropouts")   # real-bug batch 55 (read when the monitor closes)
READ_ANEW += ("outside_parameters",)   # real-bug batches 155/161 (read when it closes)
CONTINUED += ("row_standardised_inputs",)   # real-bug batch 46 (first training tables)
CONTINUED += ("training_input_signs",)   # core variants 7 (first training batches' signs)
CONTINUED += ("duplicated_arguments",)   # real-bug batches 314-315 (first training inputs)
CONTINUED += ("duplicated_input_columns",   # real-bug batch 59 (first training inputs,
              "input_ranges",   # the first forwards' and validation passes' ranges,
              "validation_teacher_inputs")   # one probed validation forward)
CONTINUED += ("discarded_losses", "gradients_after_step")   # real-bug batch 39 (loops)
CONTINUED += ("pooled_log_probs", "ppo_ratios")   # real-bug batch 44 (first steps' loss graphs)
CONTINUED += ("late_gradients", "uncleared_gradients")   # real-bug batch 50 (first steps)
CONTINUED += ("other_optimizer_carries",)   # real-bug batch 187 (first other optimizer steps)
CONTINUED += ("constant_decoder_inputs",)   # real-bug batch 49 (first steps)
CONTINUED += ("swapped_loss_arguments", "squashed_score_terms")   # real-bug batch 52
CONTINUED += ("repeated_output_calls",)   # real-bug batch 269 (first steps' loss graphs)
CONTINUED += ("derivative_calls", "per_position_gradient_norms")   # real-bug batch 56
CONTINUED += ("derivative_reach",)   # real-bug batch 336 (the noted steps' create_graph results)
CONTINUED += ("self_references",)   # real-bug batch 58 (first steps' loss graphs)
CONTINUED += ("rounded_input_columns", "wrapped_input_levels",   # real-bug batch 61 (first
              "validation_target_kinds")   # training inputs, first validation loss calls)
CONTINUED += ("category_code_columns", "embedding_field_ranges",
              "frozen_table_probes")   # real-bug batch 63 (first lookups and inputs, at findings)
CONTINUED += ("scattered_messages", "feature_axis_readouts")   # real-bug batch 66 (forward walk)
CONTINUED += ("soft_target_gradients", "self_masked_targets")   # real-bug batch 85 (loss graph, first steps)
CONTINUED += ("batch_totals_in_terms",)   # real-bug batch 83 (loss graph, first steps)
CONTINUED += ("posterior_draws",)   # real-bug batch 91 (forward and loss graphs, first steps)
CONTINUED += ("tiny_norm_batches",)   # core variants (a batch norm's 1-2 sample batches)
CONTINUED += ("mixup_partner_rows", "augmented_target_rows")   # real-bug batch 76 (first batches)
CONTINUED += ("mask_placement_rows",)   # masks moved apart from their images (first batches)
CONTINUED += ("target_offset_rows",)   # inputs and targets cropped apart (first batches)
CONTINUED += ("sample_normalised_inputs",)   # real-bug batch 172 (first training inputs)
CONTINUED += ("layer_layouts",)   # real-bug batches 16/223 (first two recorded steps' hooks)
CONTINUED += ("soft_cross_entropies",)   # real-bug batch 192 (bounded: ROWS_KEPT)
CONTINUED += ("fragile_operations",)   # real-bug batch 92 (the origin watch's steps)
CONTINUED += ("mask_indexes",)   # real-bug batch 351 (the origin watch's first steps)
CONTINUED += ("window_borders",)   # real-bug batches 170/283 (first recorded steps' hooks)
CONTINUED += ("unguarded_logs",   # real-bug batch 75 (the origin watch's first steps,
              "picked_probability_losses",   # the loss graph's first steps,
              "class_mean_losses", "empty_overlap_targets")   # the origin watch's losses)


class LongRun(Sink):
    """Keeps the run under its budget after every record, and saves it every ``save_every_s``
    seconds (at most) and when the monitor closes."""

    def __init__(self, monitor, save_to=None, save_every_s=DEFAULT_SAVE_EVERY_S):
        self.monitor = monitor
        self.requested = None if save_to is None else os.fspath(save_to)
        self.save_to = self.requested     # this rank's path, once the rank is known (save_now)
        self._rank_known = False
        self.save_every_s = save_every_s
        self.unneeded = ("on_step",) if save_to is None else ()   # nothing to save per step
        self.earlier = []            # findings from before a restart (load_state_dict)
        self.save_error = None
        self.saves = 0
        self._last_save = monitor._clock()
        self._restored_parts = []    # unregistered parts from before a restart (adopt_observed)
        self._changed_before = set()  # frozen tensors that changed before a restart

    def on_record(self, run, record, histograms):
        run.enforce_budget()      # records and histograms arrive only here

    def on_step(self, run, step):
        if self.save_to is not None and \
                self.monitor._clock() - self._last_save >= self.save_every_s:
            self.save_now()

    def close(self, run):
        run.enforce_budget()
        if self.save_to is not None:
            self.save_now()

    def save_now(self):
        """Save to ``save_to``; a failure (disk full, folder gone) is reported, never raised."""
        self._last_save = self.monitor._clock()
        if not self._rank_known:          # the process group may start after watch()
            rank = process_rank()
            self.save_to = rank_path(self.requested, rank)
            self._rank_known = rank is not None
        try:
            save(self.monitor, self.save_to)
            self.saves += 1
            self.save_error = None
        except OSError as error:
            self.save_error = f"{type(error).__name__}: {error}"

    def findings(self, run):
        if self._restored_parts or self._changed_before:
            self._continue_observed(run)
        if self.save_error is None:
            return []
        return [Finding(
            "MONITOR_ERROR", "info", "", None,
            f"nndebug could not save the run to {self.save_to} ({self.save_error}); the "
            "monitor goes on and tries again at the next save.", {"error": self.save_error},
            "Check that the folder exists and has free space, or pass another save_to.")]

    def adopt_observed(self, run, saved):
        """Continue what the saved run observed around the model (``run.observed``) and its
        batch fingerprints, in ``run``'s own lists (the monitor's observers hold them):

        - fingerprints, loss calls, warnings, batch-norm batches, graph sizes (and the loss
          terms without gradient read with them), the steps that got eval-mode gradients
          or repeated optimizer steps, optimizers built anew, seeding calls, the inputs of
          validation forwards and their first rows (validation draws), and what the graph
          walks and hooks of the first recorded steps saw (loss reductions, x + x additions,
          detached terms, whole-batch norms, NaN births, stacked linears, policy-gradient
          and entropy terms, feature moments, windows scaled with their targets, signed
          targets, token-id shares, propagation matrices, squashed batch sums, reversed
          steps, straight-through sums, (N, 1) - (N,) tables, hand-written penalties,
          gradients left by another turn, reparameterisations, whole-batch overlaps, CTC
          targets), the validation sets, aliased loads and earlier
          resumes: the saved ones first, this monitor's follow
          (their caps count both, as in one run). Lists read anew at findings or at watch
          start (repeated modules, learning-rate multipliers, ...) are this monitor's own;
        - frozen tensors: this monitor measured them when it started; the saved statistics
          are those of the run's start, so they replace them (by name), and a tensor that
          changed before the restart stays changed (``findings``);
        - unregistered parts: the saved ones first; one seen again after the restart is
          folded into its saved entry at the next ``findings`` (one entry per part).
        """
        observed, before = run.observed, saved.observed
        run.fingerprints[:0] = saved.fingerprints
        for name in CONTINUED:
            getattr(observed, name)[:0] = getattr(before, name)
        for name in FIRST_START:
            if getattr(before, name):
                getattr(observed, name)[:] = getattr(before, name)
        observed.repeated_total += before.repeated_total
        observed.multi_step_total += before.multi_step_total
        observed.train_backward_total += before.train_backward_total
        by_name = {t.name: t for t in before.frozen}
        observed.frozen[:] = [by_name.get(t.name, t) for t in observed.frozen]
        self._changed_before = {t.name for t in before.frozen if t.changed}
        observed.unregistered[:0] = before.unregistered
        self._restored_parts = list(before.unregistered)

    def _continue_observed(self, run):
        """Frozen tensors that changed before the restart stay changed; an unregistered part
        seen again joins its entry from before the restart (its steps first)."""
        observed = run.observed
        for tensor in observed.frozen:
            if tensor.name in self._changed_before:
                tensor.changed = True
        for old in list(self._restored_parts):
            again = next((u for u in observed.unregistered
                          if u is not old and _part_key(u) == _part_key(old)
                          and not any(u is r for r in self._restored_parts)), None)
            if again is None:
                continue
            again.steps[:0] = [s for s in old.steps if s not in again.steps]
            again.count = max(again.count, old.count)
            again.new_each_step = again.new_each_step or old.new_each_step
            # by identity (entries are dataclasses: == compares their fields)
            observed.unregistered[:] = [again if u is old else u for u in observed.unregistered
                                        if u is not again]      # where it was first seen
            self._restored_parts.remove(old)

    def annotate(self, run, findings):
        """The findings from before a restart join those of now, unless found again."""
        present = {f.code for f in findings}
        return list(findings) + [f for f in self.earlier if f.code not in present]


def process_rank():
    """This process's rank in a started torch.distributed run (None: no such run yet)."""
    if "torch.distributed" not in sys.modules:
        return None                   # never imported: one process, torch not even loaded
    import torch.distributed as dist
    if not (dist.is_available() and dist.is_initialized()):
        return None
    return dist.get_rank()


def rank_path(path, rank):
    """``path`` for rank 0 (or outside a distributed run), ``<stem>.rank<r><suffix>`` for
    rank r > 0."""
    if not rank:
        return path
    stem, suffix = os.path.splitext(path)
    return f"{stem}.rank{rank}{suffix}"


def _part_key(use):
    """What makes two ``UnregisteredUse`` entries the same part (as ``structure.py`` keys them)."""
    return (use.kind, use.type, use.called_from, [tuple(s) for s in use.shapes])


def snapshot(monitor):
    """(header, arrays) of the monitor's run now: history, findings, settings, step counter."""
    findings = monitor.findings()
    probe_codes = sorted({f.code for f in monitor.extra_findings + monitor.long_run.earlier})
    return runfile.encode(monitor.run, findings, {"step": monitor._step,
                                                  "probe_codes": probe_codes})


def save(monitor, path):
    """Write the monitor's run to ``path`` atomically (``nndebug.runfile``); returns the path."""
    return runfile.write(path, *snapshot(monitor))


def state_dict(monitor):
    return runfile.to_state(*snapshot(monitor))


def load_state_dict(monitor, state):
    """Continue the run saved in ``state`` (from ``mon.state_dict()``): see the module doc."""
    if monitor._step != 0:
        raise RuntimeError(f"load_state_dict(state) must be called before the first step() "
                           f"(this monitor has already seen {monitor._step} steps); call it "
                           f"right after nndebug.watch(...)")
    header, arrays = runfile.from_state(state)
    current = monitor.run
    saved, findings = runfile.decode(header, arrays, where="this monitor state",
                                     max_bytes=current.max_bytes)
    expected = [(p.name, tuple(p.shape)) for p in current.params]
    found = [(p.name, tuple(p.shape)) for p in saved.params]
    if expected != found:
        differ = next((f"{a} vs {b}" for a, b in zip(found, expected) if a != b),
                      f"{len(found)} vs {len(expected)} parameters")
        raise ValueError(f"this monitor state was saved from a model with other trainable "
                         f"parameters than this one ({differ}); load it into a monitor watching "
                         f"the same model")
    # the static facts (parameters, layers, settings, optimizer) stay this monitor's own;
    # its run object stays too (other parts of the monitor hold on to it): it takes the history
    current.adopt_history(saved)
    monitor.loss_jumps.resume(current)
    monitor.long_run.adopt_observed(current, saved)
    monitor.around.restarts.continuing()     # the optimizer rebuilt from the checkpoint
    if saved.ranks is not None and monitor.ranks is not None:
        # under DDP: the exchanges before the restart count with those after it
        monitor.ranks.continue_from(saved.ranks)
    state = header.get("monitor", {})
    steps = int(state.get("step", saved.n_steps))
    current.n_steps = monitor._step = steps
    monitor._last_full_step, monitor._plain_until = steps - 1, 0
    if monitor.around.armed:          # armed by watch() for step 0: the next step is this one
        monitor.around.arm(steps)
    # the rules judge the whole restored history again: only what the probes found (they run
    # once, early) is carried over as it was (a state from before "probe_codes": everything)
    probe_codes = state.get("probe_codes")
    monitor.long_run.earlier = [f for f in findings
                                if probe_codes is None or f.code in probe_codes]
    monitor._findings_cache = None
    current.enforce_budget()

"""The observations read by the rules of real-bug batches 15, 17, 18 and 19 survive
``mon.save`` and ``nndebug.load_run``: the rules give a loaded run the findings the live
monitor gave.

Each of those rules reads a field of ``run.observed`` (``nndebug.observed.Observed``):
optimizer starts, validation inputs, seed calls, window overlap, module freeze flags,
16-bit parameters, recurrent states drawn at random, probability targets' row sums, the
first rows of two validation passes (NumPy arrays, in the file's arrays section). Kept as
attributes added at run time they were lost on saving, and the rules went silent on the
loaded run; declared fields are written and read by ``nndebug.runfile``. The planted runs
are those of tests/test_real_bug_rules_15.py, _17, _18 and _19 (their helpers are imported,
not copied).
"""
import json
import zipfile

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import test_real_bug_rules_15 as batch15  # noqa: E402
import test_real_bug_rules_17 as batch17  # noqa: E402
import test_real_bug_rules_18 as batch18  # noqa: E402
import test_real_bug_rules_19 as batch19  # noqa: E402
import test_real_bug_rules_20 as batch20  # noqa: E402
import test_real_bug_rules_21 as batch21  # noqa: E402
import test_real_bug_rules_24 as batch24  # noqa: E402
import test_real_bug_rules_23 as batch23  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import gan_generator_step_detached as gan_detached  # noqa: E402
from benchmarks.real_bugs import residual_doubled_instead_of_added as residual_doubled  # noqa: E402,E501
from benchmarks.real_bugs import vae_kl_summed_reconstruction_averaged as vae_kl_summed  # noqa: E402,E501
from benchmarks.real_bugs import feature_columns_sorted_by_name_for_scoring as sorted_names  # noqa: E402,E501
from benchmarks.real_bugs import test_split_scaled_with_its_own_statistics as own_scaled  # noqa: E402,E501
from benchmarks.real_bugs import actor_critic_advantage_not_detached as ac_not_detached  # noqa: E402,E501
from benchmarks.real_bugs import entropy_bonus_added_to_loss as entropy_added  # noqa: E402
from benchmarks.real_bugs import policy_log_prob_broadcast_over_batch as log_prob_broadcast  # noqa: E402,E501
from benchmarks.real_bugs import window_scaled_with_its_forecast as window_scaled  # noqa: E402,E501
from benchmarks.real_bugs import vocabulary_lowercased_inputs_not as lowercased_vocabulary  # noqa: E402,E501
from benchmarks.real_bugs import lr_multiplier_key_ignored_by_optimizer as lr_mul_ignored  # noqa: E402,E501
from benchmarks.real_bugs import pretrained_keys_matched_against_empty_dict as weights_not_loaded  # noqa: E402,E501
from benchmarks.real_bugs import cosine_embedding_targets_zero_one as cosine_zero_one  # noqa: E402,E501
from benchmarks.real_bugs import straight_through_estimator_not_detached as ste_not_detached  # noqa: E402,E501
from benchmarks.real_bugs import best_weights_kept_by_reference as best_by_reference  # noqa: E402,E501
from benchmarks.real_bugs import optimizer_state_erased_on_resume as state_erased  # noqa: E402,E501
from benchmarks.real_bugs import scheduler_restarted_on_resume as scheduler_restarted  # noqa: E402,E501
from benchmarks.real_bugs import backward_rnn_outputs_not_reversed as backward_not_realigned  # noqa: E402,E501
from benchmarks.real_bugs import recurrent_cell_state_never_passed as state_never_passed  # noqa: E402,E501
from benchmarks.real_bugs import bpr_scores_summed_before_logsigmoid as bpr_summed  # noqa: E402,E501
from benchmarks.real_bugs import graph_sum_aggregation_not_normalised as sum_aggregated  # noqa: E402,E501
from benchmarks.real_bugs import lightgcn_adjacency_block_misplaced as one_way_graph  # noqa: E402,E501
from nndebug import rules, runfile  # noqa: E402
from nndebug.monitor.validation_draws import DRAW_ROWS, PASSES_KEPT  # noqa: E402
from nndebug.observed import ROW_LISTS, Observed  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
NEW_FIELDS = ROW_LISTS + ("window_overlap", "parameter_dtypes", "random_rnn_states",
                          "validation_draws")
SMOOTHING = 0.3              # batch 18's label-smoothing bug: rows sum to 1 + 0.3 * 9/10


def _every_epoch(step):
    return 0 if step % 30 == 0 else None


def _smoothing_kept_at_one(y, x):
    return batch18._one_hot(y) * (1 - SMOOTHING / batch18.CLASSES) + SMOOTHING / batch18.CLASSES


def _crop_flipped_validation():
    """Batch 18's validation set cut from the augmented dataset: crops and flips anew."""
    x, y = batch18._images(seed=2)
    generator = torch.Generator().manual_seed(0)
    return batch18._train_validated(lambda _: (batch18._crop_flip(x[:64], generator), y[:64]))


# each code with the planted run (a closed monitor) that raises it
PLANTED = {
    "OPTIMIZER_STATE_RESET": lambda: batch15._train(optimizer_every=30),
    "VALIDATION_NEVER_IMPROVED": lambda: batch15._train(relabel=[2, 0, 3, 1]),
    "VALIDATION_INPUTS_RESCALED": lambda: batch15._train(rescale=8.0, shift=5.0),
    "VALIDATION_IN_TRAIN_MODE": lambda: batch15._train(val_mode="train", norm=True,
                                                       dropout=True),
    "RNG_RESEEDED": lambda: batch15._seeded_run(_every_epoch),
    "TARGETS_UNSCALED": lambda: batch17._train_regression(level=300.0, spread=40.0),
    "VALIDATION_WINDOWS_OVERLAP_TRAINING": lambda: batch17._train_forecaster(shuffled=True),
    "REQUIRES_GRAD_SET_ON_MODULE": lambda: batch17._train_probe("attribute"),
    "UPDATES_ROUNDED_AWAY": lambda: batch17._train_in(torch.bfloat16),
    "SOFT_TARGETS_NOT_DISTRIBUTIONS": lambda: batch18._train(_smoothing_kept_at_one),
    "VALIDATION_INPUTS_AUGMENTED": _crop_flipped_validation,
    "RNN_STATE_DRAWN_AT_RANDOM": lambda: batch19._train(batch19.HelperDrawsState(), steps=5),
    "PARAMS_IN_TWO_OPTIMIZERS": lambda: batch20._gan(d_params_of_generator=True),
    "LOSS_TERMS_REDUCED_DIFFERENTLY": lambda: vae_kl_summed.run(steps=20),
    "LOSS_TERM_DETACHED_FROM_MODEL": lambda: gan_detached.run(steps=30),
    "RESIDUAL_BYPASSED": lambda: residual_doubled.run(steps=12),
    "EMBEDDINGS_NORMALIZED_OVER_BATCH": lambda: batch24._train_contrastive("batch", steps=20),
    "MODULE_REPEATED_IN_CONTAINER": batch23.repeated_blocks_run,
    "LINEAR_LAYERS_STACKED": batch23.stacked_head_run,
    "NAN_BORN_IN_FORWARD": lambda: batch21._train(batch21._mlp(), batch21._count_loss(False)),
    "NAN_BORN_IN_BACKWARD": lambda: batch21._train(batch21._mlp(), batch21._distance_loss(0.0)),
    "VALIDATION_COLUMNS_REORDERED": lambda: sorted_names.run(steps=70),   # batch 27
    "VALIDATION_SCALED_ON_ITSELF": lambda: own_scaled.run(steps=80),      # batch 27
    "POLICY_WEIGHT_NOT_DETACHED": lambda: ac_not_detached.run(steps=30),
    "LOG_PROB_BROADCAST": lambda: log_prob_broadcast.run(steps=30),
    "ENTROPY_BONUS_MINIMISED": lambda: entropy_added.run(steps=30),
}

PLANTED["SCALED_WITH_TARGET_STATISTICS"] = lambda: window_scaled.run(steps=12)   # batch 26
PLANTED["LR_MULTIPLIER_IGNORED"] = lambda: lr_mul_ignored.run(steps=12)   # batch 28
PLANTED["PRETRAINED_WEIGHTS_NOT_LOADED"] = lambda: weights_not_loaded.run(steps=12)   # batch 28
PLANTED["UNKNOWN_ID_DOMINATES_INPUTS"] = lambda: lowercased_vocabulary.run(steps=12)   # batch 30
PLANTED["SIGNED_TARGETS_AS_ZERO_ONE"] = lambda: cosine_zero_one.run(steps=12)   # batch 29
PLANTED["REVERSED_STEPS_NOT_REALIGNED"] = lambda: backward_not_realigned.run(steps=12)   # batch 34
PLANTED["RECURRENT_STATE_NEVER_PASSED"] = lambda: state_never_passed.run(steps=12)   # batch 34
PLANTED["STRAIGHT_THROUGH_NOT_DETACHED"] = lambda: ste_not_detached.run(steps=12)   # batch 32

from nndebug.zoo.torch_cases import overfitting as memorising  # noqa: E402  (wrong causes)
PLANTED["OVERFITTING"] = memorising.run   # the validation sets it compares (validation_sets.py)


PLANTED["BEST_WEIGHTS_ALIAS_LIVE_WEIGHTS"] = lambda: best_by_reference.run(steps=30)   # batch 33
PLANTED["OPTIMIZER_STATE_NOT_RESTORED"] = lambda: state_erased.run(steps=60)   # batch 33
PLANTED["SCHEDULER_RESTARTED_ON_RESUME"] = lambda: scheduler_restarted.run(steps=60)   # batch 33
PLANTED["BATCH_SUMMED_INSIDE_LOSS"] = lambda: bpr_summed.run(steps=12)   # batch 31
PLANTED["AGGREGATE_GROWS_WITH_DEGREE"] = lambda: sum_aggregated.run(steps=30)   # batch 31
PLANTED["NODES_GATHER_NOTHING"] = lambda: one_way_graph.run(steps=12)   # batch 31

from benchmarks.real_bugs import l2_penalty_added_to_decayed_optimizer as l2_twice  # noqa: E402,E501
PLANTED["WEIGHT_DECAY_APPLIED_TWICE"] = lambda: l2_twice.run(steps=12)   # batch 36
from benchmarks.real_bugs import discriminator_steps_with_generator_loss_gradient as d_carried  # noqa: E402,E501
PLANTED["GRADIENT_CARRIED_FROM_OTHER_TURN"] = lambda: d_carried.run(steps=12)   # batch 36
from benchmarks.real_bugs import handwritten_loss_broadcasts_over_batch as outer_error  # noqa: E402,E501
PLANTED["LOSS_BROADCAST_OVER_BATCH"] = lambda: outer_error.run(steps=12)   # batch 35
from benchmarks.real_bugs import loss_overwritten_per_image as overwritten  # noqa: E402,E501
PLANTED["LOSSES_NOT_BACKPROPAGATED"] = lambda: overwritten.run(steps=12)   # batch 39
from benchmarks.real_bugs import gradient_clipped_after_optimizer_step as late_clip  # noqa: E402,E501
PLANTED["GRADIENTS_CLIPPED_AFTER_STEP"] = lambda: late_clip.run(steps=40)   # batch 39
from benchmarks.real_bugs import dice_loss_summed_over_the_batch as batch_dice  # noqa: E402,E501
PLANTED["DICE_OVER_WHOLE_BATCH"] = lambda: batch_dice.run(steps=12)   # batch 38
from benchmarks.real_bugs import stego_path_resolves_to_cover as stego_twins  # noqa: E402,E501
PLANTED["CONFLICTING_LABELS_ON_IDENTICAL_INPUTS"] = lambda: stego_twins.run(steps=40)   # batch 45
from benchmarks.real_bugs import ctc_targets_use_the_blank_index as ctc_blank  # noqa: E402,E501
PLANTED["CTC_TARGET_IS_BLANK"] = lambda: ctc_blank.run(steps=4)   # batch 38
from benchmarks.real_bugs import mlm_labels_keep_unmasked_tokens as mlm_copies  # noqa: E402,E501
PLANTED["LOSS_READS_UNMASKED_TOKENS"] = lambda: mlm_copies.run(steps=4)   # batch 40
from benchmarks.real_bugs import transformer_encoder_without_positions as no_positions  # noqa: E402,E501
PLANTED["POSITIONS_IGNORED"] = lambda: no_positions.run(steps=4)   # batch 40
from benchmarks.real_bugs import packed_documents_attend_across as packed_rows  # noqa: E402,E501
PLANTED["ATTENTION_CROSSES_DOCUMENTS"] = lambda: packed_rows.run(steps=4)   # batch 40
from benchmarks.real_bugs import cnn_single_output_softmax as one_unit  # noqa: E402
PLANTED["SOFTMAX_OVER_ONE_UNIT"] = lambda: one_unit.run(steps=4)   # batch 41
from benchmarks.real_bugs import feature_map_viewed_as_pixel_vectors as pixel_view  # noqa: E402,E501
PLANTED["RESHAPE_USED_AS_TRANSPOSE"] = lambda: pixel_view.run(steps=4)   # batch 41
from benchmarks.real_bugs import vae_kl_term_left_out as kl_left_out  # noqa: E402,E501
PLANTED["VAE_KL_TERM_MISSING"] = lambda: kl_left_out.run(steps=12)   # batch 37
from benchmarks.real_bugs import vae_reparameterised_with_variance as variance_drawn  # noqa: E402,E501
PLANTED["VAE_NOISE_SCALED_BY_VARIANCE"] = lambda: variance_drawn.run(steps=12)   # batch 37
from benchmarks.real_bugs import target_columns_on_different_scales as target_columns  # noqa: E402,E501
PLANTED["TARGET_COLUMNS_ON_DIFFERENT_SCALES"] = lambda: target_columns.run(steps=12)   # batch 42
from benchmarks.real_bugs import mape_loss_on_zero_targets as mape_zero  # noqa: E402,E501
PLANTED["LOSS_DIVIDED_BY_NEAR_ZERO"] = lambda: mape_zero.run(steps=12)   # batch 42
from benchmarks.real_bugs import rolling_median_reads_next_row as median_ahead  # noqa: E402,E501
PLANTED["FEATURE_HOLDS_TARGET_VALUES"] = lambda: median_ahead.run(steps=12)   # batch 42
from benchmarks.real_bugs import residual_input_overwritten_by_inplace_relu as relu_skip  # noqa: E402,E501
PLANTED["RESIDUAL_INPUT_MODIFIED_IN_PLACE"] = lambda: relu_skip.run(steps=4)   # batch 43
from benchmarks.real_bugs import batchnorm_shared_with_shared_layer as shared_bn  # noqa: E402,E501
PLANTED["NORM_STATISTICS_SHARED_ACROSS_SITES"] = lambda: shared_bn.run(steps=4)   # batch 43
from benchmarks.real_bugs import reinforce_log_probs_averaged_before_weighting as pooled_lp  # noqa: E402,E501
PLANTED["LOG_PROBS_POOLED_BEFORE_WEIGHTING"] = lambda: pooled_lp.run(steps=6)   # batch 44
from benchmarks.real_bugs import ppo_ratio_against_its_own_detached_copy as ratio_one  # noqa: E402,E501
PLANTED["PPO_RATIO_ALWAYS_ONE"] = lambda: ratio_one.run(steps=8)   # batch 44


def _same(name, kept, loaded):
    """The field as kept by the live monitor and as loaded: the validation draws hold
    arrays (their values and float64 type must come back), the rest compares with ==."""
    if name != "validation_draws":
        return kept == loaded
    return [step for step, _ in kept] == [step for step, _ in loaded] and all(
        a.dtype == b.dtype == np.float64 and np.array_equal(a, b, equal_nan=True)
        for (_, a), (_, b) in zip(kept, loaded))


def _problems(findings):
    return {(f.code, f.severity) for f in findings if f.severity in PROBLEMS}


def _live_rule_problems(mon):
    """The live monitor's warnings and errors, less what its probes found: probes run on the
    live model during training (``mon.extra_findings``) and are not the rules' to find
    again on a loaded run."""
    probed = {f.code for f in mon.extra_findings}
    return {(code, severity) for code, severity in _problems(mon.findings())
            if code not in probed}


def _loaded_problems(path):
    loaded = nd.load_run(path)
    return _problems(rules.diagnose(loaded.run.judged_view())), loaded


@pytest.mark.parametrize("code", sorted(PLANTED))
def test_a_loaded_run_gets_the_live_findings(code, tmp_path):
    mon = PLANTED[code]()
    live = _live_rule_problems(mon)
    assert code in {c for c, _ in live}              # the bug is planted
    mon.save(tmp_path / "run.nndebug")
    again, loaded = _loaded_problems(tmp_path / "run.nndebug")
    assert again == live
    for name in NEW_FIELDS:                          # and the observations came back as kept
        assert _same(name, getattr(mon.run.observed, name),
                     getattr(loaded.run.observed, name)), name


def _strip_new_fields(path):
    """Rewrite the saved run at ``path`` as a file from before the new fields were saved."""
    header, arrays = runfile.read(path)
    for name in NEW_FIELDS:
        header["observed"].pop(name, None)
    arrays = {name: array for name, array in arrays.items() if not name.startswith("observed.")}
    runfile.write(path, header, arrays)
    with zipfile.ZipFile(path) as archive:           # they are really gone from the file
        written = json.loads(archive.read(runfile.HEADER))["observed"]
        members = archive.namelist()
    assert not set(NEW_FIELDS) & set(written)
    assert not [name for name in members if name.startswith(runfile.ARRAYS + "observed.")]


@pytest.mark.parametrize("code", ["OPTIMIZER_STATE_RESET", "SOFT_TARGETS_NOT_DISTRIBUTIONS",
                                  "VALIDATION_INPUTS_AUGMENTED", "RNN_STATE_DRAWN_AT_RANDOM"])
def test_a_file_saved_without_the_new_fields_still_loads(code, tmp_path):
    """An older file reads each missing field as its default: the rules that need them say
    nothing (the rest of the run is judged as before)."""
    mon = PLANTED[code]()
    path = tmp_path / "old.nndebug"
    mon.save(path)
    _strip_new_fields(path)
    again, loaded = _loaded_problems(path)
    fresh = Observed()
    for name in NEW_FIELDS:
        assert getattr(loaded.run.observed, name) == getattr(fresh, name), name
    assert loaded.run.observed.loss_calls == mon.run.observed.loss_calls
    assert code not in {found for found, _ in again}
    assert again == _live_rule_problems(mon) - {(code, "warning"), (code, "error")}


def _hand_made():
    observed = Observed()
    observed.optimizer_starts = [(0, "Adam"), (30, "Adam")]
    observed.validation_inputs = [(10, 0.25, 1.5, True, False),
                                  (20, float("nan"), float("nan"), False, True)]  # token ids
    observed.seed_calls = [(30, 0), (60, 0)]
    observed.window_overlap = {"rows": 300, "train_rows": 1024, "exact": 2,
                               "shifted": [(1, 1, 280), (1, 2, 275)]}
    observed.module_freeze_flags = [("backbone", ["backbone.0.weight", "backbone.0.bias"])]
    observed.parameter_dtypes = {"1.weight": "bfloat16", "3.bias": "float16"}
    observed.random_rnn_states = [{"module_type": "Tagger", "layer": "lstm",
                                   "file": "model.py", "line": 41,
                                   "call": "self.lstm(x, self.init_hidden())"}]
    observed.soft_target_rows = [(0, "cross_entropy", [1.27, 1.27]),
                                 (1, "cross_entropy", [float("nan"), 0.0])]
    observed.shared_optimizers = [(3, ["Adam", "Adam"], 4)]
    observed.loss_reductions = [(0, [("SumBackward0", "sum", 1.0, 64),
                                     ("MseLossBackward0", "mean", None, 64)])]
    observed.detached_terms = [(0, "BinaryCrossEntropyWithLogitsBackward0", 4, "dropped")]
    observed.self_additions = [(0, 2), (1, 2)]
    observed.whole_batch_norms = [(0, [64, 32]), (1, [2, 64, 32])]
    return observed


def test_hand_made_observations_keep_their_types_through_json():
    observed = _hand_made()
    text = json.dumps(runfile._encode_observed(observed), allow_nan=False)
    back = runfile.decode_observed(json.loads(text))
    assert back.optimizer_starts == observed.optimizer_starts
    assert back.seed_calls == observed.seed_calls
    assert back.window_overlap == observed.window_overlap
    assert back.module_freeze_flags == observed.module_freeze_flags
    assert back.parameter_dtypes == observed.parameter_dtypes
    first, token = back.validation_inputs
    assert first == observed.validation_inputs[0]
    assert token[0] == 20 and np.isnan(token[1]) and np.isnan(token[2])
    assert token[3:] == (False, True)
    assert back.random_rnn_states == observed.random_rnn_states
    assert back.shared_optimizers == observed.shared_optimizers
    assert back.loss_reductions == observed.loss_reductions
    assert back.detached_terms == observed.detached_terms
    assert back.self_additions == observed.self_additions
    assert back.whole_batch_norms == observed.whole_batch_norms
    assert isinstance(back.random_rnn_states[0]["line"], int)
    smoothed, masked = back.soft_target_rows
    assert smoothed == observed.soft_target_rows[0]
    assert masked[:2] == (1, "cross_entropy") and np.isnan(masked[2][0]) and masked[2][1] == 0
    assert all(isinstance(row, tuple) for name in ROW_LISTS for row in getattr(back, name))


def _draws_through_arrays(observed):
    """``observed``'s validation draws written as the run file writes them, and read back."""
    arrays = {}
    header = json.loads(json.dumps(runfile._encode_observed(observed, arrays), allow_nan=False))
    return arrays, runfile.decode_observed(header, arrays).validation_draws


def test_validation_draws_are_saved_compactly_and_bounded():
    """float32 where it holds the values exactly (inputs arrive as float32), float64 where it
    would round them; no more passes and rows than the monitor keeps."""
    observed = Observed()
    as_float32 = np.arange(40 * 6, dtype=np.float32).reshape(40, 6) / 7   # 40 > DRAW_ROWS
    finer = as_float32.astype(np.float64) + 1e-12                         # float32 rounds it
    observed.validation_draws = [(10, as_float32.astype(np.float64)), (20, finer), (30, finer)]
    arrays, back = _draws_through_arrays(observed)
    assert sorted(arrays) == [runfile.DRAWS_ARRAY.format(i) for i in range(PASSES_KEPT)]
    first, second = (arrays[runfile.DRAWS_ARRAY.format(i)] for i in range(2))
    assert first.dtype == np.float32 and second.dtype == np.float64
    assert [step for step, _ in back] == [10, 20]
    assert all(rows.dtype == np.float64 and rows.shape == (DRAW_ROWS, 6) for _, rows in back)
    assert np.array_equal(back[0][1], observed.validation_draws[0][1][:DRAW_ROWS])
    assert np.array_equal(back[1][1], finer[:DRAW_ROWS])


def test_validation_draws_need_the_arrays_to_be_written():
    """Without an arrays dict (JSON only) the draws are left out, not half written."""
    observed = Observed()
    observed.validation_draws = [(10, np.ones((4, 3)))]
    assert "validation_draws" not in runfile._encode_observed(observed)
    assert runfile.decode_observed(runfile._encode_observed(observed)).validation_draws == []


def test_every_row_list_has_a_reader():
    assert set(runfile.ROW_READERS) == set(ROW_LISTS)


def test_an_unfinished_comparison_stays_none():
    assert runfile.decode_observed(runfile._encode_observed(Observed())).window_overlap is None


def test_a_damaged_row_is_a_clear_error(tmp_path):
    mon = PLANTED["RNG_RESEEDED"]()
    path = tmp_path / "run.nndebug"
    mon.save(path)
    header, arrays = runfile.read(path)
    header["observed"]["seed_calls"] = [[30]]       # a row without its seed
    runfile.write(path, header, arrays)
    with pytest.raises(runfile.RunFileError, match="damaged"):
        nd.load_run(path)


def _damage_random_state(header, arrays):
    del header["observed"]["random_rnn_states"][0]["line"]


def _lose_a_draw(header, arrays):
    del arrays[runfile.DRAWS_ARRAY.format(1)]


def _flatten_a_draw(header, arrays):
    name = runfile.DRAWS_ARRAY.format(0)
    arrays[name] = arrays[name].reshape(-1)


def _damage_row_sums(header, arrays):
    header["observed"]["soft_target_rows"][0][2] = 1.27       # a number, not a list of sums


@pytest.mark.parametrize("code, damage", [
    ("RNN_STATE_DRAWN_AT_RANDOM", _damage_random_state),
    ("VALIDATION_INPUTS_AUGMENTED", _lose_a_draw),
    ("VALIDATION_INPUTS_AUGMENTED", _flatten_a_draw),
    ("SOFT_TARGETS_NOT_DISTRIBUTIONS", _damage_row_sums)])
def test_a_damaged_new_observation_is_a_clear_error(code, damage, tmp_path):
    mon = PLANTED[code]()
    path = tmp_path / "run.nndebug"
    mon.save(path)
    header, arrays = runfile.read(path)
    damage(header, arrays)
    runfile.write(path, header, arrays)
    with pytest.raises(runfile.RunFileError, match="damaged"):
        nd.load_run(path)


def test_validation_draws_before_a_restart_count_after_it():
    """One validation draw before the checkpoint, one after: the resumed monitor compares
    the two (the draws are continued, as one run would keep them) and names the crops. (A
    monitor holds validation inputs from its second validation pass on: the first shows it
    that the user validates; so each side validates twice.)"""
    x, y = batch18._images(seed=2)
    generator = torch.Generator().manual_seed(0)
    torch.manual_seed(0)
    train_x, train_y = batch18._images()
    model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(64, 32), torch.nn.ReLU(),
                                torch.nn.Linear(32, batch18.CLASSES))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)

    def train(mon, steps):
        for step in range(steps):
            index = torch.arange(step * 32, step * 32 + 32) % len(train_x)
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(train_x[index]), train_y[index])
            loss.backward()
            optimizer.step()
            val_loss = None
            if step % 5 == 4:                        # a validation pass every 5 steps
                model.eval()
                with torch.no_grad():
                    val_loss = torch.nn.functional.cross_entropy(
                        model(batch18._crop_flip(x[:64], generator)), y[:64])
                model.train()
            mon.step(loss, val_loss=val_loss)

    with nd.watch(model, optimizer) as before:
        train(before, 10)
    state = before.state_dict()
    assert len(before.run.observed.validation_draws) == 1
    with nd.watch(model, optimizer) as after:
        after.load_state_dict(state)
        train(after, 10)
    draws = after.run.observed.validation_draws
    assert [step for step, _ in draws] == [9, 19]
    assert np.array_equal(draws[0][1], before.run.observed.validation_draws[0][1])
    assert "VALIDATION_INPUTS_AUGMENTED" in {f.code for f in after.findings()}

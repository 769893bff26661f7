"""Verdicts on the real-bug cases that must not hang on one lucky draw of the data and the
initialisation: each case is run again with every seed it sets shifted (torch.manual_seed,
NumPy's default_rng and np.random.seed get seed + OFFSET), as a held-out run of the same
bug would draw them. Each test here is a verdict that flipped under such a shift before
the rule it names was made robust; the measured numbers are in the rules' docstrings.
"""
import contextlib
import importlib
import warnings

import numpy as np
import pytest
import torch

PROBLEMS = ("warning", "error")


@contextlib.contextmanager
def seeds_shifted(offset):
    """Every seed a case sets, shifted by ``offset`` while the block runs."""
    manual_seed, default_rng, np_seed = torch.manual_seed, np.random.default_rng, np.random.seed
    torch.manual_seed = lambda seed: manual_seed(int(seed) + offset)
    np.random.default_rng = lambda seed=None, *args, **kwargs: default_rng(
        seed + offset if isinstance(seed, int) else seed, *args, **kwargs)
    np.random.seed = lambda seed=None: np_seed(seed + offset if isinstance(seed, int) else seed)
    try:
        yield
    finally:
        torch.manual_seed, np.random.default_rng, np.random.seed = \
            manual_seed, default_rng, np_seed


def findings(case_name, fixed, offset, **kwargs):
    case = importlib.import_module(f"benchmarks.real_bugs.{case_name}")
    with seeds_shifted(offset), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return case.run(fixed=fixed, **kwargs).findings()


def problems(found):
    return sorted(f.code for f in found if f.severity in PROBLEMS)


def test_the_shift_changes_the_draw():
    with seeds_shifted(1000):
        torch.manual_seed(0)
        shifted = torch.rand(3)
    torch.manual_seed(0)
    assert not torch.equal(shifted, torch.rand(3))


# --- LOSS_AT_CHANCE: ln(C) is a chance level only for class scores, and only if it stays --------
def test_a_flow_whose_loss_converged_to_ln_2_is_not_at_chance():
    # the fixed flow covers one of the target's two equal modes: its reverse KL is ln(2),
    # and its 2-D output's width made C = 2; its samples read as class scores are far from
    # a uniform guess (entropy 0.51 to 0.68 of ln 2)
    assert problems(findings("flow_log_det_sign_flipped", True, 1000)) == []


def test_a_loss_falling_through_ln_c_in_its_last_window_is_not_at_chance():
    # an SSD-like loss of 3 outputs, falling from 7.3: its last window at 1.11 (ln 3 = 1.10)
    # but its last fifth at 1.54
    assert problems(findings("loss_divided_by_zero_positives", True, 2000)) == []


@pytest.mark.parametrize("offset", [1000, 2000])
def test_labels_shuffled_apart_stay_at_chance_under_other_seeds(offset):
    assert "LOSS_AT_CHANCE" in problems(findings("labels_shuffled_separately", False, offset))


# --- LOSS_PLATEAU: a network trained in turns against another plays a game, not a descent -------
@pytest.mark.parametrize("offset", [1000, 2000])
def test_a_healthy_gan_discriminator_is_no_plateau(offset):
    # its loss fell 16% to its best and climbed back as the generator learned: 1 to 4% from
    # its start at the end
    assert problems(findings("discriminator_steps_with_generator_loss_gradient", True,
                             offset)) == []


def test_the_discriminator_carrying_the_generators_gradient_is_still_named():
    found = problems(findings("discriminator_steps_with_generator_loss_gradient", False, 1000))
    assert "GRADIENT_CARRIED_FROM_OTHER_TURN" in found


# --- learning_poor: the best window is the least of many noisy medians ----------------------------
def test_the_best_window_is_taken_up_by_its_noise():
    from nndebug.rules.curve import POOR_IMPROVEMENT, gained_beyond_noise
    # accumulated_loss_not_divided with its seeds shifted by 1000, as measured: it ended above
    # where it started, its best window 33% below the start only by the loss's jumps
    jumpy = {"start": 2.0438, "best": 1.367, "window_error": 0.2396}
    assert gained_beyond_noise(jumpy) < POOR_IMPROVEMENT
    # its fixed twin: a loss that fell from 2.24 to 0.03 on a quiet curve
    quiet = {"start": 2.2449, "best": 0.0293, "window_error": 0.0488}
    assert gained_beyond_noise(quiet) > 0.9


@pytest.mark.parametrize("offset", [1000, 2000])
def test_gradients_accumulated_undivided_name_the_learning_rate_under_other_seeds(offset):
    assert "LR_TOO_HIGH" in problems(findings("accumulated_loss_not_divided", False, offset))


def test_gradients_accumulated_and_divided_stay_silent_under_other_seeds():
    assert problems(findings("accumulated_loss_not_divided", True, 1000)) == []


# --- learning_poor: a cross-entropy that started above ln(C) gains nothing by reaching it --------
def test_a_classifier_falling_only_to_chance_gained_nothing():
    from nndebug.rules.curve import POOR_IMPROVEMENT, gained_beyond_noise
    # graph_sum_aggregation_not_normalised with its seeds shifted by 1000, as measured: its
    # hubs' logits start the loss at 40.7, and it falls to 2.19 with ln(10) = 2.30
    summed = {"start": 40.7173, "best": 2.1871, "window_error": 0.0003}
    assert gained_beyond_noise(summed) > 0.9                    # from the start: 95%
    assert gained_beyond_noise(summed, np.log(10)) < POOR_IMPROVEMENT     # from chance: 5%
    # its fixed twin starts below chance: the reference stays its start
    mean = {"start": 2.1638, "best": 0.1372, "window_error": 0.0009}
    assert gained_beyond_noise(mean, np.log(10)) == gained_beyond_noise(mean) > 0.9


@pytest.mark.parametrize("case_name, cause", [
    ("graph_sum_aggregation_not_normalised", "AGGREGATE_GROWS_WITH_DEGREE"),
    ("clip_grad_before_backward", "LR_TOO_HIGH"),
    ("fine_tuned_at_pretraining_learning_rate", "LR_TOO_HIGH"),
])
def test_classifiers_started_above_chance_are_named_under_other_seeds(case_name, cause):
    assert cause in problems(findings(case_name, False, 1000))
    assert problems(findings(case_name, True, 1000)) == []


def test_a_loss_of_several_terms_has_no_single_chance_level():
    from nndebug.rules.context import Context
    from nndebug.rules.curve import cross_entropy_chance
    case = importlib.import_module("benchmarks.real_bugs.dependency_loss_through_argmax")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mon = case.run(fixed=True)
    # two cross-entropies and a penalty: its 2-class chance level says nothing of the sum
    assert cross_entropy_chance(Context(mon.run)) is None


# --- seeds shifted by 3000 (a full rerun of the benchmark): two twins that were named ------------
def test_a_reinforce_surrogate_falling_below_zero_has_no_unbounded_loss():
    # standardised returns weigh half the sampled actions negatively, and the rare bad
    # actions' log-probabilities keep falling: the fixed twin's loss went 0.04 to -4.7
    assert problems(findings("reinforce_log_probs_averaged_before_weighting", True, 3000)) == []
    assert "LOG_PROBS_POOLED_BEFORE_WEIGHTING" in problems(
        findings("reinforce_log_probs_averaged_before_weighting", False, 3000))


def test_tanh_units_saturating_over_healthy_training_are_info():
    # a 64-5-5-1 tanh regressor: its first layer 0.04 saturated at step 2, 0.8 by step 32,
    # while it learns
    found = findings("targets_offset_far_from_zero_left_unscaled", True, 3000)
    assert problems(found) == []
    assert "SATURATED_ACTIVATIONS" in [f.code for f in found]


def test_tanh_units_saturated_by_a_first_blow_up_stay_a_warning():
    found = problems(findings("targets_offset_far_from_zero_left_unscaled", False, 3000))
    assert "TARGETS_UNSCALED" in found and "SATURATED_ACTIVATIONS" in found


def test_an_inf_loss_on_an_unrecorded_step_after_a_steady_loss_was_born_in_its_forward():
    # at this draw the batch without a positive comes at step 7, between the records of
    # steps 4 and 8: the loss went 2.8 -> inf with no climb. Named at that step, with the
    # division by the positives' count the watched steps saw (real-bug batch 178)
    found = findings("loss_divided_by_zero_positives", False, 3000)
    born = [f for f in found if f.code == "NAN_BORN_IN_FORWARD"]
    assert born and born[0].step == 7 and born[0].evidence["operation"] == "x / sum(0/1 tensor)"


def test_a_learning_rate_blow_up_is_not_called_a_birth_in_the_forward():
    codes = problems(findings("sgd_learning_rate_blowup", False, 3000))
    assert "LR_TOO_HIGH" in codes and "NAN_BORN_IN_FORWARD" not in codes

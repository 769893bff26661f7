"""The LR benchmark's scoring: how a suggestion is read off a measured grid, and how the
tables count tasks. The benchmark itself takes half an hour; these check its arithmetic."""
import math

import pytest

from benchmarks.bench_lr_suggestion import (GOAL, RULES, TASKS, interpolated_ratio,
                                            markdown_table, robustness_table)

GRID = {1e-3: (0.8, 0.7), 1e-2: (0.2, 0.1), 1e-1: (0.4, 0.3), 1.0: (math.inf, math.inf)}
BEST = 0.2


def test_a_rate_on_the_grid_scores_its_own_ratio():
    assert interpolated_ratio(GRID, BEST, 1e-2) == pytest.approx(1.0)
    assert interpolated_ratio(GRID, BEST, 1e-1) == pytest.approx(2.0)


def test_between_grid_rates_the_loss_is_interpolated_in_log_space():
    halfway = math.sqrt(1e-2 * 1e-1)
    assert interpolated_ratio(GRID, BEST, halfway) == pytest.approx(math.sqrt(1.0 * 2.0))


def test_below_the_grid_the_loss_keeps_rising_and_no_answer_scores_inf():
    assert interpolated_ratio(GRID, BEST, 1e-4) > interpolated_ratio(GRID, BEST, 1e-3)
    assert interpolated_ratio(GRID, BEST, float("nan")) == math.inf
    assert interpolated_ratio(GRID, BEST, 0.0) == math.inf
    assert interpolated_ratio(GRID, BEST, 1.0) > 1e5          # a diverged rate is far off


def _record(task, ratio):
    rules = {name: {"lr": 0.01, "test_loss": BEST * ratio, "train_loss": 0.1, "ratio": ratio}
             for name in RULES}
    robustness = {name: {"within_goal": int(ratio <= GOAL), "n": 1, "worst": ratio,
                         "ratios": [ratio]} for name in RULES}
    return {"task": task, "framework": "torch", "optimizer": "Adam", "grid_best_lr": 0.01,
            "grid_best_loss": BEST, "rules": rules, "robustness": robustness}


def test_tables_count_tasks_within_the_goal_and_the_unseen_tasks_apart():
    records = [_record("a", 1.5), _record("b", 2.5), _record("v-c", 1.2)]
    table = markdown_table(records)
    assert "2.50x **" in table                               # a miss is marked
    assert "| **within 2x of grid best (all tasks)** |" in table
    assert "2/3" in table and "1/1" in table                  # all tasks, then v- only
    assert "**all sweeps (v- tasks only)**" in robustness_table(records)


def test_task_names_are_unique_and_the_unseen_tasks_are_marked():
    names = [t.name for t in TASKS]
    assert len(names) == len(set(names))
    assert sum(name.startswith("v-") for name in names) == 11

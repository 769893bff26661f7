"""The observations read by the rules of real-bug batches 15 and 17 survive ``mon.save`` and
``nndebug.load_run``: the rules give a loaded run the findings the live monitor gave.

Each of those rules reads a field of ``run.observed`` (``nndebug.observed.Observed``):
optimizer starts, validation inputs, seed calls, window overlap, module freeze flags,
16-bit parameters. Kept as attributes added at run time they were lost on saving, and the
rules went silent on the loaded run; declared fields are written and read by
``nndebug.runfile``. The planted runs are those of tests/test_real_bug_rules_15.py and
tests/test_real_bug_rules_17.py (their helpers are imported, not copied).
"""
import json
import zipfile

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import test_real_bug_rules_15 as batch15  # noqa: E402
import test_real_bug_rules_17 as batch17  # noqa: E402

import nndebug as nd  # noqa: E402
from nndebug import rules, runfile  # noqa: E402
from nndebug.observed import ROW_LISTS, Observed  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")
NEW_FIELDS = ROW_LISTS + ("window_overlap", "parameter_dtypes")


def _every_epoch(step):
    return 0 if step % 30 == 0 else None


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
}


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
        assert getattr(loaded.run.observed, name) == getattr(mon.run.observed, name), name


def _strip_new_fields(path):
    """Rewrite the saved run at ``path`` as a file from before the new fields were saved."""
    header, arrays = runfile.read(path)
    for name in NEW_FIELDS:
        header["observed"].pop(name, None)
    runfile.write(path, header, arrays)
    with zipfile.ZipFile(path) as archive:           # they are really gone from the file
        written = json.loads(archive.read(runfile.HEADER))["observed"]
    assert not set(NEW_FIELDS) & set(written)


def test_a_file_saved_without_the_new_fields_still_loads(tmp_path):
    """An older file reads each missing field as its default: the rules that need them say
    nothing (the rest of the run is judged as before)."""
    mon = PLANTED["OPTIMIZER_STATE_RESET"]()
    path = tmp_path / "old.nndebug"
    mon.save(path)
    _strip_new_fields(path)
    again, loaded = _loaded_problems(path)
    fresh = Observed()
    for name in NEW_FIELDS:
        assert getattr(loaded.run.observed, name) == getattr(fresh, name), name
    assert loaded.run.observed.loss_calls == mon.run.observed.loss_calls
    assert "OPTIMIZER_STATE_RESET" not in {code for code, _ in again}
    assert again == _live_rule_problems(mon) - {("OPTIMIZER_STATE_RESET", "warning"),
                                                ("OPTIMIZER_STATE_RESET", "error")}


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
    assert all(isinstance(row, tuple) for name in ROW_LISTS for row in getattr(back, name))


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

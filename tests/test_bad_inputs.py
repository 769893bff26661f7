"""Bad and unusual inputs: a correct result, or one clear line (TypeError/ValueError naming
the argument, what was expected, what was found) - never a silently wrong answer, never a
traceback from deep inside a framework - and the user's state unchanged after each call.

The first half pins down the inputs that used to be answered wrongly; the second half
(Hypothesis) generates bad inputs across the public API."""
import contextlib
import os

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import minigrad as mg
import minigrad.nn as mnn
import nndebug as nd
from minigrad.interop import from_torch
from nndebug.adapters import adapt

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _torch_problem(seed=0):
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    x = torch.randn(5, 3)
    y = torch.randint(0, 2, (5,))
    return model, x, y, torch.nn.CrossEntropyLoss()


def _minigrad_problem(seed=0):
    model, x, y, _ = _torch_problem(seed)
    return from_torch(model), x.numpy(), y.numpy(), mnn.CrossEntropyLoss()


# --- silently wrong before ----------------------------------------------------------------

def test_compare_refuses_layers_of_different_sizes():
    mm, x, y, _ = _minigrad_problem()
    torch.manual_seed(0)
    wider = torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.ReLU(), torch.nn.Linear(5, 2))
    with pytest.raises(ValueError, match=r"differ in size: parameter 0.weight has shape \(4, 3\)"):
        nd.compare(mm, wider, x, y, torch.nn.CrossEntropyLoss())


@pytest.mark.parametrize("bad", ["nan", "inf", "empty"])
def test_compare_never_agrees_on_nan_or_empty_data(bad):
    mm, x, y, _ = _minigrad_problem()
    tm = _torch_problem()[0]
    if bad == "empty":
        x, y = x[:0], y[:0]
    else:
        x = x.copy()
        x[1, 2] = np.nan if bad == "nan" else np.inf
    with mg.bugs.plant(mg.bugs.catalogue()[0].name):
        with pytest.raises(ValueError, match="NaN or Inf|empty batch"):
            nd.compare(mm, tm, x, y, torch.nn.CrossEntropyLoss())


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
@pytest.mark.parametrize("call", ["overfit_one_batch", "find_lr", "revive_dead_neurons",
                                  "gradcheck", "locate"])
def test_an_empty_batch_is_named_as_such(framework, call):
    model, x, y, loss_fn = (_torch_problem if framework == "torch" else _minigrad_problem)()
    x, y = x[:0], y[:0]
    state = adapt(model).capture_state()
    with pytest.raises(ValueError, match=r"empty batch \(shape \(0, 3\)\)"):
        if call == "find_lr":
            nd.find_lr(model, loss_fn, [(x, y)] * 10, steps=10)
        elif call == "revive_dead_neurons":
            nd.revive_dead_neurons(model, x)
        else:
            getattr(nd, call)(model, x, y, loss_fn)
    assert adapt(model).state_differences(state) == []


# --- one clear line instead of a traceback or a misleading message ---------------------------

MIXED = {
    "minigrad model, torch loss": lambda: nd.gradcheck(*_minigrad_problem()[:3],
                                                       torch.nn.CrossEntropyLoss()),
    "minigrad model, torch inputs": lambda: nd.locate(_minigrad_problem()[0], torch.randn(5, 3),
                                                      _minigrad_problem()[2], mnn.CrossEntropyLoss()),
    "torch model, minigrad inputs": lambda: nd.overfit_one_batch(
        _torch_problem()[0], mg.tensor(np.ones((5, 3), np.float32)), _torch_problem()[2],
        torch.nn.CrossEntropyLoss()),
    "torch model, minigrad loss": lambda: nd.find_lr(
        _torch_problem()[0], mnn.CrossEntropyLoss(), [_torch_problem()[1:3]] * 10, steps=10),
    "minigrad model, torch functional loss": lambda: nd.gradcheck(
        *_minigrad_problem()[:3], torch.nn.functional.cross_entropy),
}


@pytest.mark.parametrize("case", sorted(MIXED))
def test_frameworks_mixed_name_both_frameworks_and_the_conversion(case):
    with pytest.raises(TypeError) as error:
        MIXED[case]()
    message = str(error.value)
    assert "PyTorch" in message and "minigrad" in message and "\n" not in message
    assert "convert" in message or "use the loss" in message


@pytest.mark.parametrize("call", ["gradcheck", "locate", "overfit_one_batch"])
def test_a_negative_seed_names_the_argument(call):
    with pytest.raises(ValueError, match="seed must be a non-negative integer, got -1"):
        getattr(nd, call)(*_torch_problem(), seed=-1)


def test_none_inputs_name_the_argument():
    model, _, y, loss_fn = _torch_problem()
    with pytest.raises(TypeError, match="inputs is None"):
        nd.overfit_one_batch(model, None, y, loss_fn)


@pytest.mark.parametrize("model", [torch.nn.Tanh(), "frozen"])
def test_find_lr_on_a_model_with_nothing_to_train(model):
    if model == "frozen":
        model = _torch_problem()[0].requires_grad_(False)
    _, x, y, loss_fn = _torch_problem()
    with pytest.raises(ValueError, match="no trainable parameters"):
        nd.find_lr(model, loss_fn, [(x, y)] * 10, steps=10)


def test_numpy_scalars_are_numbers():
    model, x, y, loss_fn = _torch_problem()
    res = nd.overfit_one_batch(model, x, y, loss_fn, steps=np.int64(20), lr=np.float32(0.01),
                               diagnose=False, seed=np.int32(1))
    assert res.steps == 20 and isinstance(res.steps, int)
    res = nd.find_lr(model, loss_fn, [(x, y)] * 10, steps=np.int64(10), start_lr=np.float32(1e-5),
                     end_lr=np.float64(1.0))
    assert len(res.lrs) >= 1
    assert nd.gradcheck(model, x, y, loss_fn, seed=np.int64(2)).passed


def test_a_float_model_fed_integers_is_told_to_convert():
    model, _, y, loss_fn = _torch_problem()
    ints = torch.randint(0, 3, (5, 3))
    for call in (lambda: nd.gradcheck(model, ints, y, loss_fn),
                 lambda: nd.overfit_one_batch(model, ints, y, loss_fn, steps=5),
                 lambda: nd.find_lr(model, loss_fn, [(ints, y)] * 10, steps=10)):
        with pytest.raises(TypeError, match="inputs are int64 but the model computes in float32"):
            call()


@pytest.mark.parametrize("loss_fn", ["mse", 3])
def test_watch_refuses_a_loss_fn_that_cannot_be_called(loss_fn):
    model = _torch_problem()[0]
    with pytest.raises(TypeError, match="loss_fn must be the loss the loop calls"):
        nd.watch(model, loss_fn=loss_fn)
    assert not any(m._forward_hooks or m._forward_pre_hooks for m in model.modules())


def test_watch_refuses_probes_that_cannot_be_called():
    with pytest.raises(TypeError, match="probes must be callables"):
        nd.watch(_torch_problem()[0], probes=[1])


@pytest.mark.parametrize("loss", [torch.tensor(1 + 2j), 1 + 2j, np.complex64(1)],
                         ids=["tensor", "python", "numpy"])
def test_a_complex_loss_is_refused_by_name(loss):
    with nd.watch(_torch_problem()[0]) as mon:
        with pytest.raises(TypeError, match="expects a real loss"):
            mon.step(loss)


def test_a_run_saved_into_a_missing_folder_creates_it_and_a_folder_path_is_refused(tmp_path):
    with nd.watch(_torch_problem()[0]) as mon:
        mon.step(1.0)
        target = tmp_path / "new" / "deeper" / "run.nndebug"
        mon.save(target)
        assert nd.load_run(target).findings() == mon.findings()
        with pytest.raises(IsADirectoryError, match="it is a folder; give a file name"):
            mon.save(tmp_path)


def test_check_data_accepts_class_names():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((60, 3))
    balanced = nd.check_data(x, np.array(["cat", "dog", "bird"] * 20))
    assert not [f for f in balanced if f.severity != "info"]
    skewed = nd.check_data(x, np.array(["cat"] * 58 + ["dog"] * 2))
    assert [f.code for f in skewed] == ["CLASS_IMBALANCE"]


# --- Hypothesis: bad and unusual inputs across the public API and the CLI ---------------------



FEW = settings(max_examples=25, deadline=None, derandomize=True,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
MISLEADING = ("must be Tensor, not Tensor", "cannot turn data of dtype object", "Long and Double",
              "empty parameter list", "log of 0")


def _arrays():
    dtypes = st.sampled_from([np.float32, np.float64, np.int64, np.int32, np.bool_, np.complex64])
    shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5)
    special = st.sampled_from([None, np.nan, np.inf, -np.inf])
    return st.builds(_array, dtypes, shapes, special, st.integers(0, 2 ** 16))


def _array(dtype, shape, special, seed):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "b":
        return rng.random(shape) > 0.5
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-1, 4, shape).astype(dtype)
    array = rng.standard_normal(shape).astype(dtype)
    if special is not None and array.size and np.dtype(dtype).kind == "f":
        array.reshape(-1)[0] = special
    return array


def _as_framework(array, where):
    if where == "torch" and np.asarray(array).dtype.kind in "fiub":
        return torch.from_numpy(np.ascontiguousarray(array))
    if where == "minigrad" and np.asarray(array).dtype.kind in "fiub":
        return mg.tensor(np.asarray(array))
    return array


def data_values():
    """Anything a user might pass as inputs or targets."""
    arrays = st.tuples(_arrays(), st.sampled_from(["numpy", "torch", "minigrad"])).map(
        lambda pair: _as_framework(*pair))
    odd = st.sampled_from([None, "text", b"bytes", 3, 2.5, float("nan"), [], {}, [1.0, 2.0],
                           {"x": 1}, object(), ["a", "b", "c", "d", "e"]])
    return st.one_of(arrays, odd, st.lists(arrays, min_size=1, max_size=2).map(tuple))


def numbers():
    """Anything a user might pass as steps, lr or seed."""
    return st.one_of(st.integers(-3, 40), st.floats(allow_nan=True, allow_infinity=True),
                     st.sampled_from([np.int64(12), np.int32(0), np.float32(0.01), np.float64(-1),
                                      True, None, "10", [3], np.array([2])]))


def losses(framework):
    def nonscalar(output, target):
        return (output - output) ** 2

    other = mnn.CrossEntropyLoss() if framework == "torch" else torch.nn.CrossEntropyLoss()
    own = torch.nn.CrossEntropyLoss() if framework == "torch" else mnn.CrossEntropyLoss()
    return st.sampled_from([own, other, nonscalar, None, "mse", 3, torch.nn.functional.mse_loss,
                            lambda output, target: output.sum()])


def _problem(framework):
    return (_torch_problem if framework == "torch" else _minigrad_problem)()


@contextlib.contextmanager
def the_rule(model):
    """A correct result or one clear line, and the user's state unchanged either way."""
    adapter = adapt(model)
    state = adapter.capture_state()
    hooks = adapter.hook_counts()
    torch_rng, numpy_rng = torch.get_rng_state(), np.random.get_state()
    threads = torch.get_num_threads()
    try:
        yield
    except (TypeError, ValueError) as error:
        message = str(error).strip()
        assert message, f"{type(error).__name__} without a message"
        assert "\n" not in message, message
        assert not any(phrase in message for phrase in MISLEADING), message
    finally:
        assert adapter.state_differences(state) == []
        assert adapter.hook_counts() == hooks
        assert torch.equal(torch.get_rng_state(), torch_rng)
        assert np.array_equal(np.random.get_state()[1], numpy_rng[1])
        assert torch.get_num_threads() == threads


CHECKS = {
    "gradcheck": lambda m, x, y, f, **k: nd.gradcheck(m, x, y, f, **k),
    "locate": lambda m, x, y, f, **k: nd.locate(m, x, y, f, **k),
    "overfit_one_batch": lambda m, x, y, f, **k: nd.overfit_one_batch(
        m, x, y, f, **{"steps": 5, "diagnose": False, **k}),
    "find_lr": lambda m, x, y, f, **k: nd.find_lr(m, f, [(x, y)] * 3, **{"steps": 10, **k}),
}


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
@pytest.mark.parametrize("call", sorted(CHECKS))
@FEW
@given(st.data())
def test_bad_data_get_a_result_or_one_clear_line(framework, call, data):
    model, x, y, loss_fn = _problem(framework)
    which = data.draw(st.sampled_from(["inputs", "targets", "both"]))
    if which in ("inputs", "both"):
        x = data.draw(data_values(), label="inputs")
    if which in ("targets", "both"):
        y = data.draw(data_values(), label="targets")
    with the_rule(model):
        CHECKS[call](model, x, y, loss_fn)


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
@pytest.mark.parametrize("call", sorted(CHECKS))
@FEW
@given(st.data())
def test_bad_losses_and_numbers_get_a_result_or_one_clear_line(framework, call, data):
    model, x, y, loss_fn = _problem(framework)
    options = {}
    if data.draw(st.booleans(), label="replace the loss"):
        loss_fn = data.draw(losses(framework), label="loss_fn")
    names = {"gradcheck": ["seed"], "locate": ["seed"], "overfit_one_batch": ["steps", "lr", "seed"],
             "find_lr": ["steps", "start_lr", "seed"]}[call]
    for name in data.draw(st.lists(st.sampled_from(names), max_size=2, unique=True)):
        options[name] = data.draw(numbers(), label=name)
    with the_rule(model):
        CHECKS[call](model, x, y, loss_fn, **options)


@pytest.mark.parametrize("framework", ["torch", "minigrad"])
@FEW
@given(data_values())
def test_revive_dead_neurons_on_bad_inputs(framework, x):
    model = _problem(framework)[0]
    adapter = adapt(model)
    before = [adapter.to_numpy(p) for _, p in adapter.named_parameters()]
    try:
        revived = nd.revive_dead_neurons(model, x)
    except (TypeError, ValueError) as error:
        assert str(error).strip() and "\n" not in str(error).strip()
        after = [adapter.to_numpy(p) for _, p in adapter.named_parameters()]
        assert all(np.array_equal(a, b) for a, b in zip(before, after))   # nothing half-done
    else:
        assert isinstance(revived, int) and 0 <= revived <= 4


@FEW
@given(data_values(), data_values())
def test_check_data_on_bad_inputs(x, y):
    try:
        findings = nd.check_data(x, y)
    except (TypeError, ValueError) as error:
        assert str(error).strip() and "\n" not in str(error).strip()
    else:
        assert all(f.severity in ("info", "warning", "error") for f in findings)


@FEW
@given(st.data())
def test_compare_on_bad_inputs_never_agrees_silently(data):
    mm, x, y, _ = _minigrad_problem()
    tm = _torch_problem()[0]
    if data.draw(st.booleans(), label="bad inputs"):
        x = data.draw(data_values(), label="inputs")
    else:
        y = data.draw(data_values(), label="targets")
    with the_rule(tm), the_rule(mm):
        report = nd.compare(mm, tm, x, y, torch.nn.CrossEntropyLoss())
        assert np.isfinite(report.loss_torch) and np.isfinite(report.loss_minigrad)


# --- the command line -------------------------------------------------------------------------

EXPRESSIONS = ["None", "'text'", "[]", "{'a': 1}", "torch.randn(0, 3)", "torch.randn(5, 4)",
               "torch.randint(0, 3, (5, 3))", "np.full((5, 3), np.nan, np.float32)",
               "mg.tensor(np.ones((5, 3), np.float32))", "torch.randn(5, 3).double()",
               "torch.randint(5, 9, (5,))", "torch.randn(5)", "mnn.CrossEntropyLoss()",
               "torch.nn.MSELoss()", "42", "lambda o, t: sys.exit(3)", "torch.nn.Linear(3, 2)",
               "torch.optim.SGD(torch.nn.Linear(1, 1).parameters(), lr=0.1)"]
FACTORY = '''
import sys
import numpy as np
import torch
import minigrad as mg
import minigrad.nn as mnn


def make():
    torch.manual_seed(0)
    problem = dict(model=torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(),
                                             torch.nn.Linear(4, 3)),
                   inputs=torch.randn(5, 3), targets=torch.randint(0, 3, (5,)),
                   loss_fn=torch.nn.CrossEntropyLoss(), optimizer=None)
    problem[{key!r}] = {value}
    return problem
'''


def _run_cli(args, cwd):
    """``nndebug ARGS`` in this process (no interpreter start-up per example): an exception
    escaping ``main`` would be the traceback a user sees, so it fails the test."""
    import io
    from types import SimpleNamespace

    from nndebug.cli import main
    out, err, before = io.StringIO(), io.StringIO(), os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exit_:      # argparse's own usage errors
                code = exit_.code
    finally:
        os.chdir(before)
    return SimpleNamespace(returncode=code, stdout=out.getvalue(), stderr=err.getvalue())



CLI_FEW = settings(max_examples=15, deadline=None, derandomize=True,
                   suppress_health_check=[HealthCheck.too_slow,
                                          HealthCheck.function_scoped_fixture])


@CLI_FEW
@given(key=st.sampled_from(["model", "inputs", "targets", "loss_fn", "optimizer"]),
       value=st.sampled_from(EXPRESSIONS),
       command=st.sampled_from([["gradcheck"], ["lr-find", "--steps", "10", "--no-progress"]]))
def test_the_cli_answers_bad_targets_with_0_1_or_2_and_one_line(tmp_path_factory, key, value,
                                                                 command):
    folder = tmp_path_factory.mktemp("cli")
    (folder / "target.py").write_text(FACTORY.format(key=key, value=value))
    done = _run_cli([*command, "target.py:make"], folder)
    assert done.returncode in (0, 1, 2), done.stderr
    assert "Traceback" not in done.stderr
    if done.returncode == 2:
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr


@CLI_FEW
@given(spec=st.sampled_from(["missing.py:make", "target.py", "target.py:", "target.py:nothing",
                             ".:make", "target.py:make:extra", "notes.txt:make", ""]),
       output=st.sampled_from([None, ["--csv", "no/such/dir/a.csv"], ["--plot", "."],
                               ["--csv", "."], ["--plot", "target.py"]]))
def test_the_cli_answers_bad_paths_with_0_1_or_2_and_one_line(tmp_path_factory, spec, output):
    folder = tmp_path_factory.mktemp("paths")
    (folder / "target.py").write_text(FACTORY.format(key="optimizer", value="None"))
    (folder / "notes.txt").write_text("not python")
    done = _run_cli(["lr-find", spec, "--steps", "10", "--no-progress", *(output or [])], folder)
    assert done.returncode in (0, 1, 2), done.stderr
    assert "Traceback" not in done.stderr
    if done.returncode == 2:
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr

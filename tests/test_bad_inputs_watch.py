"""Bad arguments to watch, step() and check_dependencies found by the third sweep: each gets
a clear error (what was expected, what was found, what to do), and NumPy integers count as
integers."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import nndebug as nd  # noqa: E402


def model():
    return torch.nn.Sequential(torch.nn.Linear(4, 2))


@pytest.mark.parametrize("loss", ["0.5", b"0.5", True, False])
def test_a_loss_given_as_text_or_a_bool_is_refused(loss):
    with nd.watch(model()) as mon:
        with pytest.raises(TypeError, match="loss tensor itself"):
            mon.step(loss)


def test_numpy_integers_are_integers_for_watch():
    with nd.watch(model(), every=np.int64(2), histogram_every=np.int32(3)) as mon:
        assert mon.every == 2 and type(mon.every) is int and mon.histogram_every == 3


@pytest.mark.parametrize("overhead", [True, float("nan"), 0, 1.5, "0.1"])
def test_an_overhead_that_is_no_share_is_refused(overhead):
    with pytest.raises(ValueError, match="overhead must be a share"):
        nd.watch(model(), overhead=overhead)


def test_save_to_a_folder_is_refused_with_a_file_name_to_use(tmp_path):
    with pytest.raises(ValueError, match="is a folder; pass a file path inside it"):
        nd.watch(model(), save_to=tmp_path)


def test_check_dependencies_refuses_counts_and_offsets_that_are_not_integers():
    x = torch.randn(8, 4)
    with pytest.raises(ValueError, match="max_samples must be a positive integer"):
        nd.check_dependencies(model(), x, max_samples=0)
    with pytest.raises(TypeError, match="task_offset must be an integer"):
        nd.check_dependencies(model(), x, task_offset="a")


def test_check_dependencies_says_integer_inputs_need_a_float_model_and_keeps_the_rng():
    net, ids = model(), torch.randint(0, 3, (8, 4))
    before = torch.get_rng_state()
    with pytest.raises(TypeError, match="inputs are int64 but the model computes in float32"):
        nd.check_dependencies(net, ids)
    assert torch.equal(torch.get_rng_state(), before)


def test_a_lazy_model_before_its_first_forward_is_refused_with_what_to_do():
    lazy = torch.nn.Sequential(torch.nn.LazyLinear(8), torch.nn.ReLU(), torch.nn.LazyLinear(2))
    with pytest.raises(ValueError, match="Run one forward pass first"):
        nd.watch(lazy, torch.optim.SGD(lazy.parameters(), lr=0.1))
    lazy(torch.randn(3, 5))                     # initialised: watched like any model
    optimizer = torch.optim.SGD(lazy.parameters(), lr=0.1)
    with nd.watch(lazy, optimizer) as mon:
        for _ in range(5):
            loss = lazy(torch.randn(3, 5)).pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert mon.run.n_steps == 5

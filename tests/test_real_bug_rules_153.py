"""Real-bug batch 153 (functional and higher-order training code). Two healthy runs drew
warnings: a MAML loop written with ``torch.func`` (``vmap`` over tasks, ``grad`` for the
inner step) had the wrappers those transforms run the model on taken for unregistered copies
of its weights, and the monitor's measurements failed inside ``vmap``; and hyperIQA's loop,
which rebuilds Adam each epoch to halve its rates, was warned of resetting its optimizer.
Now the transforms' tensors are left alone (the twin is silent, with no monitor error), a
rebuild that changes the rate each time is info, and one at the same rate is still a
warning; a deepcopy adapted in place (the copies the check is for) is still named."""
import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402
from torch.func import functional_call, grad, vmap  # noqa: E402

import nndebug as nd  # noqa: E402
from benchmarks.real_bugs import hypernetwork_params_generator_exhausted_after_first_epoch as hyper  # noqa: E402,E501
from benchmarks.real_bugs import maml_inner_step_writes_param_data as param_data  # noqa: E402
from benchmarks.real_bugs import maml_query_loss_reads_pre_adaptation_prediction as maml  # noqa: E402
from benchmarks.real_bugs._common import batches, classification, mlp  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROBLEMS = ("warning", "error")


def _codes(mon, severities=PROBLEMS):
    return {f.code for f in mon.findings() if f.severity in severities}


def test_a_maml_loop_under_vmap_and_grad_is_silent_and_measured():
    mon = maml.run(fixed=True, steps=300)
    assert not _codes(mon)
    assert "MONITOR_ERROR" not in _codes(mon, ("info",))


def test_weights_copied_and_written_through_data_are_still_named():
    assert "UNREGISTERED_PARAMETERS" in _codes(param_data.run())


def test_a_vmapped_ensemble_of_stacked_members_records_no_monitor_error():
    torch.manual_seed(0)
    x, y = classification()
    members = [mlp() for _ in range(3)]
    params, _ = torch.func.stack_module_state(members)
    holder = nn.ParameterDict({k.replace(".", "_"): nn.Parameter(v) for k, v in params.items()})
    base = mlp().to("meta")

    def member(p, inputs):
        return functional_call(base, p, (inputs,))

    optimizer = torch.optim.Adam(holder.parameters(), lr=1e-3)
    with nd.watch(holder, optimizer) as mon:
        for xb, yb in batches(x, y, 100):
            stacked = {k: holder[k.replace(".", "_")] for k in params}
            logits = vmap(member, in_dims=(0, None))(stacked, xb)
            loss = nn.functional.cross_entropy(logits.flatten(0, 1), yb.repeat(3))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert "MONITOR_ERROR" not in _codes(mon, ("info",))
    assert "UNREGISTERED_PARAMETERS" not in _codes(mon)


def test_inner_gradients_taken_by_torch_func_grad_are_not_noted_as_the_loops():
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def loss_of(p, xb, yb):
        return nn.functional.cross_entropy(functional_call(model, p, (xb,)), yb)

    with nd.watch(model, optimizer) as mon:
        for xb, yb in batches(x, y, 60):
            params = dict(model.named_parameters())
            inner = grad(loss_of)(params, xb, yb)      # torch.func's own autograd.grad call
            fast = {k: p - 0.01 * inner[k] for k, p in params.items()}
            loss = loss_of(fast, xb, yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    assert "MONITOR_ERROR" not in _codes(mon, ("info",))


def _rebuilt_each_epoch(halve):
    torch.manual_seed(0)
    x, y = classification()
    model = mlp()
    rate, optimizer = 3e-3, None
    with nd.watch(model) as mon:
        for step, (xb, yb) in enumerate(batches(x, y, 150)):
            if step % 30 == 0:
                rate = rate / 2 if halve and optimizer is not None else rate
                optimizer = torch.optim.Adam(model.parameters(), lr=rate)
            loss = nn.functional.cross_entropy(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mon.step(loss)
    return [f for f in mon.findings() if f.code == "OPTIMIZER_STATE_RESET"]


def test_an_optimizer_rebuilt_to_halve_its_rate_is_info():
    found = _rebuilt_each_epoch(halve=True)
    assert [f.severity for f in found] == ["info"]
    assert found[0].evidence["rate_changed_each_time"]


def test_an_optimizer_rebuilt_at_the_same_rate_is_still_a_warning():
    assert [f.severity for f in _rebuilt_each_epoch(halve=False)] == ["warning"]


def test_the_hypernetwork_twin_is_silent():
    mon = hyper.run(fixed=True)
    assert mon.held_out_mse < 0.1
    assert not _codes(mon)

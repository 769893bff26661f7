"""Models stored in bfloat16 or float16 are watched like float32 ones: NumPy has no
bfloat16, so every value that goes to the host is widened first (exactly) instead of
failing into a MONITOR_ERROR that leaves the records empty."""
import numpy as np
import pytest

import nndebug as nd
from nndebug.adapters import adapt

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_a_low_precision_model_is_recorded_without_monitor_errors(dtype):
    dtype = getattr(torch, dtype)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(),
                                torch.nn.Linear(16, 3)).to(dtype)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    rng = np.random.default_rng(0)
    with nd.watch(model, optimizer) as monitor:
        for _ in range(40):
            x = torch.from_numpy(rng.normal(size=(32, 8)).astype(np.float32)).to(dtype)
            y = torch.from_numpy(rng.integers(0, 3, size=32))
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x).float(), y)
            loss.backward()
            optimizer.step()
            monitor.step(loss)
    assert not [f for f in monitor.findings() if f.code == "MONITOR_ERROR"], monitor.report()
    last = monitor.run.records[-1]
    assert set(last.activations) == {"0", "1", "2"}
    assert np.all(np.isfinite(last.grad_norm)) and np.all(last.update_norm > 0)
    assert np.isfinite(monitor.run.fingerprints).any()


def test_bfloat16_values_reach_numpy_exactly():
    values = torch.tensor([1.0, -2.5, 3.140625, 1e-3], dtype=torch.bfloat16)
    adapter = adapt(torch.nn.Linear(2, 2))
    for host in (adapter.to_numpy(values), adapter.to_host(values)):
        assert host.dtype == np.float32
        assert np.array_equal(host, values.float().numpy())

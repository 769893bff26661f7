"""nndebug and minigrad must work with only NumPy installed (API.md).

Each check runs in a fresh interpreter where importing torch fails, as it would
on a machine without PyTorch.
"""
import subprocess
import sys
import textwrap

BLOCK_TORCH = textwrap.dedent("""
    import sys
    class _NoTorch:
        def find_spec(self, name, path=None, target=None):
            if name == "torch" or name.startswith("torch."):
                raise ImportError("torch is not installed (blocked by the test)")
    sys.meta_path.insert(0, _NoTorch())
""")


def run_without_torch(code):
    result = subprocess.run([sys.executable, "-c", BLOCK_TORCH + textwrap.dedent(code)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def test_gradcheck_locate_and_watch_work_on_minigrad_without_torch():
    out = run_without_torch("""
        import numpy as np
        import minigrad as mg, minigrad.nn as nn, minigrad.optim as optim
        import nndebug as nd
        mg.manual_seed(0)
        model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
        x = mg.tensor(np.random.default_rng(0).normal(size=(16, 4)).astype(np.float32))
        y = mg.tensor(np.arange(16) % 3)
        loss_fn = nn.CrossEntropyLoss()
        assert nd.gradcheck(model, x, y, loss_fn).passed
        with mg.bugs.plant("tanh_not_squared"):
            assert nd.locate(model, x, y, loss_fn).suspects[0].op == "tanh"
        opt = optim.SGD(model.parameters(), lr=0.1)
        with nd.watch(model, optimizer=opt) as mon:
            for _ in range(5):
                opt.zero_grad(); loss = loss_fn(model(x), y); loss.backward(); opt.step()
                mon.step(loss)
        print(len(mon.findings()), "torch" in sys.modules)
    """)
    assert out.split()[-1] == "False"


def test_cli_help_without_torch():
    out = run_without_torch("""
        from nndebug.cli import main
        raise SystemExit(main(["--help"]))
    """)
    assert "demo" in out and "gradcheck" in out


def test_torch_model_is_refused_clearly_when_model_is_not_a_module():
    out = run_without_torch("""
        import nndebug as nd
        try:
            nd.adapt(object())
        except TypeError as error:
            print("TypeError:", error)
    """)
    assert "torch.nn.Module" in out and "minigrad.nn.Module" in out

"""The char-level GPT example runs, learns, and trains minigrad and torch in step."""
import numpy as np
import pytest

from minigrad.examples import char_gpt

SMALL = ["--block-size", "16", "--n-embd", "16", "--n-head", "2", "--n-layer", "1",
         "--batch-size", "8", "--sample-length", "20", "--every", "5"]


def test_the_shipped_text_loads():
    text, chars, ids = char_gpt.load_text()
    assert len(text) > 4000 and "Shall I compare thee" in text
    assert "".join(chars[i] for i in ids[:40]) == text[:40]


def test_minigrad_alone_learns_the_characters(capsys):
    results = char_gpt.main(SMALL + ["--steps", "40", "--no-torch", "--lr", "1e-2"])
    losses = results["minigrad"]["losses"]
    assert set(results) == {"minigrad"}
    assert np.mean(losses[-5:]) < losses[0] - 1.0        # from ln(vocab) ~ 4 nats towards 3
    out = capsys.readouterr().out
    assert "minigrad loss" in out and "ms per training step" in out
    assert len(results["minigrad"]["sample"]) == 20


def test_minigrad_and_torch_train_in_step_and_plot(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("matplotlib")
    path = tmp_path / "losses.png"
    results = char_gpt.main(SMALL + ["--steps", "4", "--attention", "sdpa", "--plot", str(path)])
    ours, theirs = results["minigrad"]["losses"], results["torch"]["losses"]
    np.testing.assert_allclose(ours, theirs, rtol=1e-4)   # float32, same weights and batches
    assert path.stat().st_size > 1000


def test_bad_sizes_are_refused():
    with pytest.raises(SystemExit):
        char_gpt.parse_args(["--n-embd", "10", "--n-head", "3"])

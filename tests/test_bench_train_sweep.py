"""The size sweep times the same thing on both sides: same model source, weights and batch give
the same first loss in torch and minigrad (so the ratio compares like with like)."""
import pytest

pytest.importorskip("torch")

from benchmarks import bench_train_sweep as sweep  # noqa: E402


@pytest.mark.parametrize("label", ["mlp 64-128-64-10", "cnn 1x8x8 c16-c32", "gpt 2x48, 32 chars",
                                   "lstm 2x128, 32 chars"])
def test_both_frameworks_start_from_the_same_loss(label, one_torch_thread):
    first = {fw: sweep.build(fw, label)() for fw in sweep.FRAMEWORKS}
    assert first["minigrad"] == pytest.approx(first["torch"], rel=1e-4)


def test_the_sweep_covers_every_kind_and_names_its_goal():
    kinds = {kind for kind, _ in sweep.SIZES.values()}
    assert kinds == {"mlp", "cnn", "gpt", "lstm"}
    assert sweep.GOAL == 1.2

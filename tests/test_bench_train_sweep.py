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


# --- the peers (other autograd engines): plumbing that runs without any of them installed -----

def _timed(ms):
    """A timing entry as the children write it: per-round CPU and wall-clock ms, faults."""
    return {"step_ms": list(ms), "wall_ms": list(ms), "faults_per_step": [0.0] * len(ms)}


def _results(peers):
    timing = {label: {"first_loss": {"torch": 2.3, "minigrad": 2.3},
                      **{key: {fw: value for fw in sweep.FRAMEWORKS}
                         for key, value in _timed([1.0, 1.1]).items()}}
              for label in ("mlp 64-128-64-10", "gpt 2x48, 32 chars")}
    return {"timing": timing, "memory": {}, "rounds": 2, "peers": peers, "cores": 2,
            "load_before": 0.5, "load_after": 0.5}


def _peer_row(peer_losses, torch_losses=(2.30, 2.28, 2.26, 2.25, 2.24)):
    timed = _timed([1.0, 1.2])
    return {"losses": {"torch": list(torch_losses), "tinygrad": list(peer_losses)},
            **{key: {"torch": value, "tinygrad": [3 * v for v in value]}
               for key, value in timed.items()}}


def _cells(text, label):
    """The cells of ``label``'s row of the rendered table, by column title."""
    lines = text.splitlines()
    titles = [cell.strip() for cell in lines[0].strip("|").split("|")]
    row = next(line for line in lines if line.startswith(f"| {label} ("))
    return dict(zip(titles, (cell.strip() for cell in row.strip("|").split("|"))))


def test_a_missing_or_failed_peer_gives_a_dash_and_a_note():
    same = [2.30, 2.28, 2.26, 2.25, 2.24]
    text = sweep.table(_results({
        "autograd": {"missing": True},
        "mygrad": {"error": "ZeroDivisionError: boom"},
        "tinygrad": {"version": "0.14.0", "rows": {"mlp 64-128-64-10": _peer_row(same)}}}))
    mlp, gpt = _cells(text, "mlp 64-128-64-10"), _cells(text, "gpt 2x48, 32 chars")
    assert (mlp["autograd / torch"], mlp["mygrad / torch"]) == ("-", "-")
    assert mlp["tinygrad / torch"] == "3.00"         # fastest 3.0 ms / torch's fastest 1.0 ms
    assert gpt["tinygrad / torch"] == "-"             # the GPT step is not written for the peers
    assert mlp["minigrad step (ms)"] == "1.00" and mlp["torch peak MiB"] == "-"
    assert "autograd: not installed (make bench-peers installs autograd 1.9.1)" in text
    assert "mygrad: its child failed, no numbers: ZeroDivisionError: boom" in text
    assert "tinygrad 0.14.0: same losses as torch" in text
    assert "A/A: torch's step in the peers' children / in the main child 1.00-1.00" in text


def test_a_peer_whose_losses_differ_from_torch_is_marked_not_trusted():
    off_from_the_start = [2.40, 2.38, 2.36, 2.35, 2.34]
    text = sweep.table(_results({"tinygrad": {"version": "0.14.0", "rows": {
        "mlp 64-128-64-10": _peer_row(off_from_the_start)}}}))
    assert _cells(text, "mlp 64-128-64-10")["tinygrad / torch"] == "3.00*"
    assert "CHECK FAILED (*): mlp 64-128-64-10: first loss 2.4, torch 2.3" in text
    rising = sweep._peer_checks("tinygrad", _peer_row([2.3, 2.4, 2.5, 2.6, 2.7],
                                                      [2.3, 2.4, 2.5, 2.6, 2.7]))
    assert rising == ["its loss does not fall (2.3 -> 2.7)"]


def test_no_peers_asked_for_gives_no_peer_columns():
    text = sweep.table(_results({}))
    assert "/ torch" not in text.splitlines()[0] and "Peers: not run (--peers none)." in text
    assert "A/A" not in text


def test_a_peer_that_is_not_installed_comes_back_missing_from_its_child():
    assert sweep._peer_result("no_such_engine_for_the_sweep", ["mlp 64-128-64-10"], 1) == \
        {"missing": True}


def test_a_peer_child_that_crashes_gives_its_error_not_an_exception():
    # "json" imports, but no step is written for it: the child raises, the sweep goes on
    result = sweep._peer_result("json", ["mlp 64-128-64-10"], 1)
    assert result == {"error": "ValueError: unknown engine 'json': expected one of autograd, "
                               "mygrad, tinygrad"}
    cells = _cells(sweep.table(_results({"json": result})), "mlp 64-128-64-10")
    assert cells["json / torch"] == "-"


def test_an_unknown_peer_on_the_command_line_is_one_clear_error(capsys):
    with pytest.raises(SystemExit):
        sweep.main(["--peers", "mygrad,nosuch"])
    assert "--peers: unknown nosuch; expected some of autograd, mygrad, tinygrad" in \
        capsys.readouterr().err


@pytest.mark.parametrize("engine", ["autograd", "mygrad"])
@pytest.mark.parametrize("label", ["mlp 64-128-64-10", "cnn 1x8x8 c16-c32"])
def test_an_installed_peer_takes_the_same_steps_as_torch(engine, label, one_torch_thread):
    """Where a peer is installed (make bench-peers), its step is torch's step: same losses."""
    pytest.importorskip(engine)
    from benchmarks.train_peers import build_peer
    kind, size = sweep.SIZES[label]
    weights = sweep.torch_weights(label)
    steps = {"torch": sweep.build("torch", label, weights),
             engine: build_peer(engine, kind, weights, *sweep.batch_of(kind, size))}
    losses = {name: [step() for _ in range(3)] for name, step in steps.items()}
    assert losses[engine] == pytest.approx(losses["torch"], rel=sweep.LOSS_RTOL)

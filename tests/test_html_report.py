"""The HTML report: self-contained (nothing loaded from outside), findings linked to their plot,
and rendered by a real browser (headless Chromium) with the findings in the rendered DOM."""
import os
import re
import shutil
import subprocess

import pytest

from nndebug import zoo
from nndebug.report.html import render_page

OUTSIDE = re.compile(r"""(?:src|href)\s*=\s*["'](?:https?:)?//""", re.I)


@pytest.fixture(scope="module")
def broken_run():
    monitor = zoo.get("torch/dead-relu-bias").run()
    return monitor.run, monitor.findings()


def test_page_is_self_contained_and_links_each_finding_to_a_plot(broken_run):
    pytest.importorskip("matplotlib")
    run, findings = broken_run
    page = render_page(run, findings, title="dead relu")
    assert page.lstrip().lower().startswith("<!doctype html>")
    assert not OUTSIDE.search(page), "the page must not load anything from outside"
    assert 'name="viewport"' in page                     # readable on a phone
    codes = [f.code for f in findings if f.severity != "info"]
    assert "DEAD_RELU" in codes
    for code in codes:
        assert f'data-code="{code}"' in page
    for target in set(re.findall(r'href="#(panel-[a-z]+)"', page)):
        assert f'id="{target}"' in page, f"a finding links to {target}, which is not on the page"
    assert page.count("data:image/png;base64,") >= 3


def test_page_escapes_what_the_run_names(broken_run):
    from nndebug.findings import Finding
    run, _ = broken_run
    sneaky = Finding(code="DEAD_RELU", severity="warning", where="<script>alert(1)</script>",
                     message="a & b < c", evidence={"x": "<b>"}, fix="use <i>")
    page = render_page(run, [sneaky])
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;" in page


def test_healthy_page_says_so():
    monitor = zoo.get("torch/healthy-mlp").run()
    page = render_page(monitor.run, monitor.findings())
    assert "nothing looks wrong" in page or "No warning or error" in page


def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    if os.environ.get("CI"):
        pytest.fail("CI must have Chromium for the browser test (.ci/run installs Debian's chromium)")
    pytest.skip("no Chromium on this machine (.ci/run installs it)")


def _headless(browser, *args, timeout=90):
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--disable-dev-shm-usage"]
    return subprocess.run([browser, *flags, *args], capture_output=True, text=True, timeout=timeout)


def test_report_renders_in_a_real_browser(broken_run, tmp_path):
    pytest.importorskip("matplotlib")
    browser = _chromium()
    run, findings = broken_run
    path = tmp_path / "report.html"
    path.write_text(render_page(run, findings, title="dead relu"))
    profile = tmp_path / "profile"
    dom = _headless(browser, f"--user-data-dir={profile}", "--dump-dom", path.as_uri())
    assert dom.returncode == 0, dom.stderr[-500:]
    assert "DEAD_RELU" in dom.stdout and 'class="finding"' in dom.stdout
    shot = tmp_path / "shot.png"
    result = _headless(browser, f"--user-data-dir={profile}", f"--screenshot={shot}",
                       "--window-size=1200,1600", path.as_uri())
    assert result.returncode == 0 and shot.exists(), result.stderr[-500:]
    import matplotlib.image
    pixels = matplotlib.image.imread(str(shot))
    assert pixels.std() > 0.02, "the rendered page is blank"


def test_monitor_saves_html_and_shows_itself_in_jupyter(tmp_path):
    monitor = zoo.get("torch/dead-relu-bias").run()
    path = monitor.save_html(str(tmp_path / "deep" / "report.html"))
    page = open(path).read()
    assert "DEAD_RELU" in page and not OUTSIDE.search(page)
    inline = monitor._repr_html_()
    assert inline.startswith('<div class="nd">') and 'data-code="DEAD_RELU"' in inline


def test_every_checker_result_shows_itself_in_jupyter():
    torch = pytest.importorskip("torch")
    import nndebug as nd
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.Tanh(), torch.nn.Linear(6, 3))
    x, y = torch.randn(8, 4), torch.tensor([0, 1, 2, 0, 1, 2, 0, 1])
    loss_fn = torch.nn.CrossEntropyLoss()
    results = [nd.gradcheck(model, x, y, loss_fn), nd.locate(model, x, y, loss_fn),
               nd.overfit_one_batch(model, x, y, loss_fn, steps=30),
               nd.find_lr(model, loss_fn, [(x, y)] * 20, steps=20)]
    for result in results:
        html = result._repr_html_()
        assert html.startswith('<div class="nd">'), type(result).__name__
        assert "passed" in html or "problems found" in html
    assert 'src="data:image/png;base64,' in results[-1]._repr_html_()   # find_lr's plot inline


def test_demo_html_writes_one_page_with_every_run(tmp_path, monkeypatch, capsys):
    pytest.importorskip("matplotlib")
    from nndebug import cli
    from nndebug.commands import demo as demo_command
    monkeypatch.setattr(demo_command, "TOUR", ["torch/healthy-mlp", "minigrad/double-softmax"])
    assert cli.main(["demo", "--out", str(tmp_path), "--html", "--no-plots"]) == 0
    page = (tmp_path / "index.html").read_text()
    assert "torch/healthy-mlp" in page and 'data-code="DOUBLE_SOFTMAX"' in page
    assert not OUTSIDE.search(page)
    for target in set(re.findall(r'href="#([a-z0-9-]+)"', page)):
        assert f'id="{target}"' in page, f"a link points to #{target}, which is not on the page"

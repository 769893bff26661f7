"""HTML views of nndebug's results: one self-contained page, and fragments for Jupyter.

Why HTML: a learner reads findings in a notebook or a browser, not in a folder of text
files. Everything a page needs travels inside it - the style sheet, and the plots as
base64 PNG images - so the file opens offline, can be mailed, and never makes a request.

Two entry points:

- ``render_page(run, findings, title)``: the whole report of a watched run (``Monitor.
  save_html``, ``nndebug demo --html``). Each finding links to the plot panel that shows
  its evidence (``#panel-loss``, ``#panel-gradients``, ...).
- ``findings_fragment`` / ``result_fragment``: a ``<div>`` with its own scoped style, what
  ``_repr_html_`` returns so Jupyter shows the same findings inline.

Reads findings and records only; it imports nothing that reports on it (the data flows
framework -> adapter -> records -> rules -> findings -> reports).
"""
import base64
import html
import io

SEVERITY_COLOURS = {"error": "#c0392b", "warning": "#d35400", "info": "#5d6d7e"}
SEVERITY_BACKGROUNDS = {"error": "#fdecea", "warning": "#fef5e7", "info": "#f4f6f7"}

# which plot panel shows the evidence of a finding, by code; codes not listed link to the loss
PANEL_OF_CODE = {
    "DEAD_RELU": "activity", "SATURATED_ACTIVATIONS": "activity",
    "EXPLODING_ACTIVATIONS": "activations", "COLLAPSED_ACTIVATIONS": "activations",
    "VANISHING_GRADIENTS": "gradients", "EXPLODING_GRADIENTS": "gradients",
    "NO_GRADIENT": "gradients", "NAN_GRADIENTS": "gradients", "LR_TOO_HIGH": "gradients",
    "LR_TOO_LOW": "gradients", "PARAMS_NOT_UPDATING": "gradients",
    "GRADIENTS_ACCUMULATING": "gradients",
}
PANELS = [  # (id, heading, the function of nndebug.report.plots that draws it)
    ("loss", "Loss curve, findings marked where first seen", "plot_loss"),
    ("gradients", "Gradient flow and update sizes, first layer on the left",
     "plot_gradient_flow"),
    ("activations", "Activation scale over time", "plot_activation_scale"),
    ("activity", "Dead ReLU units and saturated tanh/sigmoid outputs", "plot_dead_saturated"),
]

STYLE = """
.nd{font-family:-apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;
 color:#1c2833;line-height:1.45;max-width:1100px;margin:0 auto;padding:0 12px}
.nd h1{font-size:1.5em;margin:.6em 0 .2em}.nd h2{font-size:1.2em;margin:1.2em 0 .4em}
.nd .verdict{font-weight:600;padding:.5em .8em;border-radius:6px;margin:.6em 0}
.nd .ok{background:#eafaf1;color:#1e8449}.nd .bad{background:#fdecea;color:#922b21}
.nd .finding{border-left:6px solid;border-radius:4px;padding:.5em .8em;margin:.6em 0}
.nd .code{font-family:ui-monospace,Menlo,Consolas,monospace;font-weight:700}
.nd .badge{display:inline-block;color:#fff;border-radius:3px;padding:0 .45em;
 font-size:.8em;margin-right:.4em;text-transform:uppercase}
.nd .fix{margin-top:.3em}.nd details{margin-top:.3em}
.nd table{border-collapse:collapse;font-size:.9em;margin:.3em 0;display:block;overflow-x:auto}
.nd td,.nd th{border:1px solid #d5d8dc;padding:.15em .5em;text-align:left;vertical-align:top;
 overflow-wrap:anywhere}
.nd pre{background:#f8f9f9;padding:.6em;overflow-x:auto;font-size:.85em}
.nd img{max-width:100%;height:auto;border:1px solid #eaecee}
.nd .panels{display:flex;flex-wrap:wrap;gap:12px}
.nd .panel{flex:1 1 480px;min-width:0}
.nd a{color:#1f618d}
"""


def escape(value):
    return html.escape(str(value), quote=True)


# --- pieces ------------------------------------------------------------------------------
def _evidence_table(evidence):
    if not evidence:
        return ""
    rows = "".join(f"<tr><th>{escape(key)}</th><td>{escape(_short(value))}</td></tr>"
                   for key, value in evidence.items())
    return f"<details><summary>evidence</summary><table>{rows}</table></details>"


def _short(value, limit=300):
    text = repr(value) if not isinstance(value, str) else value
    return text if len(text) <= limit else text[:limit] + " ..."


def finding_html(finding, link_panels=False, prefix=""):
    """One finding as a coloured card: severity, code, where, step, message, fix, evidence."""
    colour = SEVERITY_COLOURS.get(finding.severity, "#5d6d7e")
    background = SEVERITY_BACKGROUNDS.get(finding.severity, "#f4f6f7")
    where = f" in <b>{escape(finding.where)}</b>" if finding.where else ""
    step = f" (step {escape(finding.step)})" if finding.step is not None else ""
    link = ""
    if link_panels:
        panel = PANEL_OF_CODE.get(finding.code, "loss")
        link = f' <a href="#panel-{prefix}{panel}">see the plot</a>'
    fix = f'<div class="fix"><b>First fix:</b> {escape(finding.fix)}</div>' if finding.fix else ""
    return (f'<div class="finding" data-code="{escape(finding.code)}" '
            f'style="border-color:{colour};background:{background}">'
            f'<span class="badge" style="background:{colour}">{escape(finding.severity)}</span>'
            f'<span class="code">{escape(finding.code)}</span>{where}{step}{link}'
            f"<div>{escape(finding.message)}</div>{fix}{_evidence_table(finding.evidence)}</div>")


def findings_html(findings, link_panels=False, prefix=""):
    """Every finding as a card, or a green line when there is nothing to say."""
    if not findings:
        return '<div class="verdict ok">No findings: nothing looks wrong.</div>'
    serious = [f for f in findings if f.severity != "info"]
    verdict = (f'<div class="verdict bad">{len(serious)} problem(s) found</div>' if serious else
               '<div class="verdict ok">No warning or error; notes below.</div>')
    return verdict + "".join(finding_html(f, link_panels, prefix) for f in findings)


def png_bytes_uri(png):
    """PNG bytes as an inline ``data:`` URI (no file, no request)."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def png_data_uri(figure):
    """A matplotlib figure as an inline ``data:`` URI."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=90, bbox_inches="tight")
    return png_bytes_uri(buffer.getvalue())


def panel_images(run, findings):
    """``[(id, heading, data_uri)]`` for each plot panel that can be drawn (needs matplotlib;
    without it, no panels: the findings alone still make a complete page)."""
    try:
        from . import plots
        plots._figure(1, 1)
    except ImportError:
        return []
    images = []
    for panel_id, heading, function_name in PANELS:
        figure = plots._figure(6.4, 3.6)
        ax = figure.add_subplot(1, 1, 1)
        draw = getattr(plots, function_name)
        try:
            if function_name == "plot_loss":
                draw(ax, run, findings)
            else:
                draw(ax, run)
        except (ValueError, IndexError, TypeError, KeyError):   # a run with too little data
            continue
        images.append((panel_id, heading, png_data_uri(figure)))
    return images


def _panels_html(images, prefix=""):
    if not images:
        return "<p>(No plots: matplotlib is not installed, or the run recorded too little.)</p>"
    return '<div class="panels">' + "".join(
        f'<div class="panel" id="panel-{prefix}{pid}"><h3>{escape(heading)}</h3>'
        f'<img alt="{escape(heading)}" src="{uri}"></div>' for pid, heading, uri in images) + "</div>"


def _summary_table(run):
    steps, losses = run.loss_array()
    rows = [("framework", run.framework), ("optimizer steps", run.n_steps),
            ("detailed records", len(run.records)),
            ("trainable parameter tensors", len(run.params)), ("layers watched", len(run.layers))]
    if len(losses):
        rows += [("first loss", f"{losses[0]:.4g}"), ("last loss", f"{losses[-1]:.4g}")]
    body = "".join(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in rows)
    return f"<table>{body}</table>"


# --- whole documents and notebook fragments ---------------------------------------------------
def page(title, body):
    """A complete, self-contained HTML document (readable on a phone: viewport + fluid layout)."""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{escape(title)}</title><style>{STYLE}</style></head>"
            f"<body><main class=\"nd\">{body}</main></body></html>\n")


def run_body(run, findings, title=None, plots=True, prefix="", level=1):
    """The report of one watched run: verdict, findings linked to plots, panels, summary.
    ``prefix`` keeps the panel ids unique when several runs share one page."""
    h, h2 = f"h{level}", f"h{level + 1}"
    heading = f"<{h}>{escape(title)}</{h}>" if title else ""
    images = panel_images(run, findings) if plots else []
    return (f"{heading}<{h2}>Findings</{h2}>"
            f"{findings_html(findings, link_panels=bool(images), prefix=prefix)}"
            f"<{h2}>Plots</{h2}>{_panels_html(images, prefix) if plots else ''}"
            f"<{h2}>The run</{h2}>{_summary_table(run)}")


def render_page(run, findings, title="nndebug report"):
    return page(title, run_body(run, findings, title))


def fragment(body):
    """What ``_repr_html_`` returns: the body inside a div carrying the scoped style."""
    return f'<div class="nd"><style>{STYLE}</style>{body}</div>'


# --- writing files, and the results of the checkers -------------------------------------------
def write_page(path, run, findings, title="nndebug report"):
    """Write the report of a run to ``path`` (folders created); returns the path."""
    import os
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(render_page(run, findings, title=title))
    return path


def run_fragment(run, findings, title=None):
    """A watched run for Jupyter (``Monitor._repr_html_``): findings, plots, summary."""
    return fragment(run_body(run, findings, title=title))


RESULT_TITLES = {"GradcheckReport": "Gradient check", "LocateReport": "Where the backward is wrong",
                 "CompareReport": "minigrad against PyTorch", "OverfitResult": "Overfit one batch",
                 "LRFinderResult": "Learning-rate range test"}


def _result_passed(result):
    if hasattr(result, "passed"):
        return bool(result.passed)
    if hasattr(result, "suspects"):                       # locate: no suspect means all agree
        return not result.suspects
    if hasattr(result, "first_divergence"):               # compare
        return result.first_divergence is None
    return True


def _result_image(result):
    """The result's own plot (``result.plot(path)``), embedded; None when it has none."""
    plot = getattr(result, "plot", None)
    if not callable(plot):
        return ""
    import os
    import tempfile
    try:
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "plot.png")
            plot(path)
            with open(path, "rb") as handle:
                uri = png_bytes_uri(handle.read())
    except Exception:                                      # no matplotlib, nothing to draw
        return ""
    return f'<img alt="plot" src="{uri}">'


def result_html(result):
    """What a checker's result shows in Jupyter: verdict, findings, its plot, its text."""
    title = RESULT_TITLES.get(type(result).__name__, type(result).__name__)
    passed = _result_passed(result)
    verdict = ('<div class="verdict ok">passed</div>' if passed else
               '<div class="verdict bad">problems found</div>')
    cards = "".join(finding_html(f) for f in getattr(result, "findings", None) or [])
    return fragment(f"<h2>{escape(title)}</h2>{verdict}{cards}{_result_image(result)}"
                    f"<pre>{escape(str(result))}</pre>")


def tour_page(title, intro, cases):
    """Several runs on one page (``nndebug demo --html``): a table of contents with each
    run's verdict, then each run's report. ``cases``: dicts with name, description,
    expected, passed, run and findings."""
    rows, sections = [], []
    for number, case in enumerate(cases):
        anchor = f"case-{number}"
        problems = ", ".join(f.code for f in case["findings"] if f.severity != "info") or "healthy"
        mark = "expected diagnosis" if case["passed"] else "NOT the expected diagnosis"
        rows.append(f'<tr><td><a href="#{anchor}">{escape(case["name"])}</a></td>'
                    f'<td>{escape(problems)}</td><td>{escape(mark)}</td></tr>')
        expected = case["expected"] or "nothing (a healthy run)"
        sections.append(
            f'<section id="{anchor}"><hr><p><b>What is wrong:</b> {escape(case["description"])}'
            f"<br><b>nndebug should say:</b> {escape(expected)}</p>"
            + run_body(case["run"], case["findings"], title=case["name"], prefix=f"{anchor}-",
                       level=2) + "</section>")
    table = ("<table><tr><th>run</th><th>nndebug found</th><th>verdict</th></tr>" +
             "".join(rows) + "</table>")
    return page(title, f"<h1>{escape(title)}</h1><p>{escape(intro)}</p>{table}" + "".join(sections))

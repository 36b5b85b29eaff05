"""Building blocks of the HTML reports (docs/reports.md): one self-contained page, tables,
plots made with Debian's matplotlib and inlined as SVG. No JavaScript, no network: a report
opens from a file:// URL as it is, and can be mailed or archived alone."""

import html
import io
import math
import os
import re
import sys
import tempfile

import matplotlib

matplotlib.use("svg")
from matplotlib.figure import Figure  # noqa: E402  (after choosing the backend)

# The four shares of a kernel record's active SM cycles (docs/outputs.md), in the order of
# the rule for `bound`, with the colour each report gives them.
SHARES = ("issue", "memory", "alu_latency", "barriers")
SHARE_COLOURS = {"issue": "#4878d0", "memory": "#ee854a", "alu_latency": "#6acc64",
                 "barriers": "#d65f5f"}

# The bottleneck verdicts (`bound` of a kernel record) and their colours in tables.
BOUND_COLOURS = {"issue": "#dbe6fa", "memory_bandwidth": "#fbd9c5", "memory_latency": "#fdebd0",
                 "alu_latency": "#d8f2d6", "barriers": "#f6d3d3"}

CSS = """
body { font-family: "DejaVu Sans", Arial, sans-serif; margin: 1.5em; color: #222;
       max-width: 1400px; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 1.6em; }
h3 { font-size: 1.0em; margin-bottom: 0.3em; }
p.note { color: #555; font-size: 0.9em; margin: 0.3em 0; }
div.scroll { overflow-x: auto; max-height: 40em; overflow-y: auto; }
table.data { border-collapse: collapse; font-size: 0.85em; margin: 0.3em 0 0.8em 0; }
table.data th, table.data td { border: 1px solid #ccc; padding: 0.15em 0.45em;
                               text-align: left; white-space: nowrap; }
table.data th { background: #f0f0f0; position: sticky; top: 0; }
table.data td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.data td.fail { background: #f6d3d3; }
table.data td pre { margin: 0; font-size: 0.95em; white-space: pre-wrap; }
div.records { display: flex; flex-wrap: wrap; gap: 0 1.5em; }
figure { margin: 0.5em 0 1em 0; }
figure svg { max-width: 100%; height: auto; }
figcaption { font-size: 0.85em; color: #555; }
"""

_SVG_OPEN = re.compile(r"<svg\b")
# An id of an SVG element, or a reference to one: id="x", url(#x), href="#x".
_SVG_ID = re.compile(r'(\bid="|url\(#|href="#)([^"#)]+)')


class InputError(Exception):
    """An input of a report that cannot be used (missing, unreadable, invalid); the message
    names the file, with line and column where known."""


def esc(value):
    """`value` as HTML text."""
    return html.escape(str(value), quote=True)


def fmt(value):
    """A cell value for reading: integers exact, other numbers to 4 significant digits,
    None as empty, everything else as text."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return str(value)
        if value == int(value) and abs(value) < 1e15:
            return str(int(value))
        return f"{value:.4g}"
    return str(value)


def is_number(value):
    """True for an int or a float (not a bool, not a text)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def flatten(record, prefix=""):
    """A record with nested objects flattened into 'outer.inner' keys, in the record's order."""
    flat = {}
    for key, value in record.items():
        if isinstance(value, dict):
            flat.update(flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def table(headers, rows, table_id=None, cell_class=None, scroll=True, raw_columns=()):
    """An HTML table. `rows` are sequences of values in the order of `headers`; numbers are
    right-aligned. `cell_class(header, value)` may name a CSS class for a cell (e.g. the
    verdict colour); columns named in `raw_columns` hold HTML already (links, <pre>)."""
    ident = f' id="{esc(table_id)}"' if table_id else ""
    out = [f'<table class="data"{ident}>',
           "<thead><tr>" + "".join(f"<th>{esc(h)}</th>" for h in headers) + "</tr></thead>",
           "<tbody>"]
    for row in rows:
        cells = []
        for header, value in zip(headers, row):
            classes = []
            if is_number(value):
                classes.append("num")
            extra = cell_class(header, value) if cell_class else None
            style = ""
            if extra and extra.startswith("#"):
                style = f' style="background:{extra}"'
            elif extra:
                classes.append(extra)
            cls = f' class="{" ".join(classes)}"' if classes else ""
            text = value if header in raw_columns else esc(fmt(value))
            cells.append(f"<td{cls}{style}>{text}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table>")
    text = "\n".join(out)
    return f'<div class="scroll">{text}</div>' if scroll else text


def bound_colour(header, value):
    """cell_class for tables with a `bound` column: the verdict's colour."""
    if header == "bound" or header.endswith(": bound"):
        return BOUND_COLOURS.get(str(value))
    return None


def figure(width_in, height_in):
    """A matplotlib figure (object API: no global pyplot state) of the given size in inches."""
    return Figure(figsize=(width_in, height_in), layout="constrained")


def svg(fig, plot_id, title, caption=None):
    """`fig` as an inline <svg> with id `plot_id` and a <title>, in a <figure> with an optional
    caption. Text stays text (searchable, small); every id inside the plot starts with
    `plot_id`, so several plots in one page never share an id."""
    buf = io.StringIO()
    # A fixed salt for the hashed ids of clip paths and markers: the same plot, the same text.
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": plot_id}):
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    text = buf.getvalue()
    start = _SVG_OPEN.search(text)
    text = text[start.start():] if start else text
    # matplotlib names its groups figure_1, axes_1, ... in every plot: prefixed with the
    # plot's id (and so the references to them), the ids of a page stay unique.
    text = _SVG_ID.sub(lambda m: f'{m.group(1)}{plot_id}-{m.group(2)}', text)
    text = _SVG_OPEN.sub(f'<svg id="{esc(plot_id)}" role="img" aria-label="{esc(title)}"',
                         text, count=1)
    head_end = text.index(">") + 1
    text = text[:head_end] + f"<title>{esc(title)}</title>" + text[head_end:]
    cap = f"<figcaption>{caption}</figcaption>" if caption else ""
    return f"<figure>{text}{cap}</figure>"


def page(title, sections):
    """A whole HTML document: `title`, then the sections (HTML strings) in order."""
    body = "\n".join(sections)
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f"<title>{esc(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
            f"<h1>{esc(title)}</h1>\n{body}\n</body>\n</html>\n")


def write_text(path, text):
    """Writes `text` to `path` through a temporary file in the same folder, so a reader never
    sees half a report. Raises OSError when it cannot be written."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".report-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return path


def command(argv, usage, prog, write):
    """The command line of a report, `prog FOLDER`: write(FOLDER) writes FOLDER/report.html
    and returns its path. Returns the exit status: 0 written, 1 the report cannot be written,
    2 bad arguments or an input that cannot be used (InputError)."""
    if argv in (["-h"], ["--help"]):
        print(usage)
        return 0
    if len(argv) != 1:
        print(usage, file=sys.stderr)
        return 2
    try:
        path = write(argv[0])
    except InputError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"{prog}: error: cannot write '{os.path.join(argv[0], 'report.html')}': "
              f"{e.strerror or e}", file=sys.stderr)
        return 1
    print(f"{prog}: wrote {path}")
    return 0

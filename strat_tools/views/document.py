"""A tiny document model, rendered twice: sections of paragraphs, tables and figures, as one
self-contained HTML page or as Markdown.

:class:`Section` collects blocks (:class:`Table` with its numbers formatted here, counts with
separators and shares in percent; :class:`Picture` held as PNG bytes, embedded as a base64
``data:`` URI); :func:`render_html` and :func:`render_markdown` write them out. Knows no
statistic and no game: :mod:`strat_tools.report.page` fills the sections.

>>> section = Section("Corpus", "corpus")
>>> section.text("Every game of the input.")
>>> print(render_markdown([section], "Report", "made today"))  # doctest: +NORMALIZE_WHITESPACE
# Report
<BLANKLINE>
made today
<BLANKLINE>
## Corpus
<BLANKLINE>
Every game of the input.
<BLANKLINE>
"""

from __future__ import annotations

import base64
import html
import re
from dataclasses import dataclass, field

import pandas as pd
from matplotlib.figure import Figure

from strat_tools.core.text import markdown_text
from strat_tools.views.figure_files import figure_bytes


@dataclass(frozen=True)
class Table:
    """A captioned table; ``frame`` is already formatted as strings."""

    caption: str
    frame: pd.DataFrame


@dataclass(frozen=True)
class Picture:
    """A captioned figure, held as PNG bytes."""

    caption: str
    png: bytes
    alt: str


@dataclass
class Section:
    """A report section: a heading and its paragraphs, tables and pictures in order."""

    title: str
    anchor: str
    blocks: list[str | Table | Picture] = field(default_factory=list)

    def text(self, paragraph: str) -> None:
        """Append a paragraph."""
        self.blocks.append(paragraph)

    def table(self, caption: str, frame: pd.DataFrame) -> None:
        """Append a table (numbers formatted here: counts with separators, shares in %)."""
        self.blocks.append(Table(caption, format_frame(frame)))

    def figure(self, caption: str, fig: Figure, alt: str) -> None:
        """Append a figure, rendered now to PNG so it can be released."""
        self.blocks.append(Picture(caption, figure_png(fig), alt))


def figure_png(fig: Figure, dpi: int = 100) -> bytes:
    """A figure as PNG bytes, laid out and drawn once
    (:func:`~strat_tools.views.figure_files.figure_bytes`)."""
    return figure_bytes(fig, "png", dpi)


_PERCENT_COLUMNS = ("share", "rate", "ci_low", "ci_high", "valid_pct")


def _format_value(column: str, value: object) -> str:
    """One cell as text: ``12.3%`` for shares and rates, ``1,234`` for counts."""
    if value is None or (isinstance(value, float) and value != value) or value is pd.NA:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and any(column.endswith(p) for p in _PERCENT_COLUMNS):
        return f"{value * 100:.1f}%"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.0f}" if value.is_integer() else f"{value:,.1f}"
    return str(value)


def format_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A frame of display strings with readable headers (``win_rate`` → ``win rate``)."""
    out = pd.DataFrame(index=range(len(frame)))
    for column in frame.columns:
        values = frame[column].astype(object).tolist()
        cells = [_format_value(str(column), _plain(v)) for v in values]
        out[str(column).replace("_", " ")] = cells
    return out


def _plain(value: object) -> object:
    """numpy scalars as Python ones, so formatting sees ints as ints."""
    item = getattr(value, "item", None)
    return item() if callable(item) else value


# --- rendering ----------------------------------------------------------------------------

_CSS = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;
color:#1d1d1f;background:#fafafa}
main{max-width:1280px;margin:0 auto;padding:1rem 1.5rem 4rem}
h1{font-size:1.7rem;margin:.8rem 0 .2rem}h2{border-bottom:2px solid #ddd;padding-top:1rem}
nav ol{columns:2;font-size:.95rem}
table{border-collapse:collapse;margin:.4rem 0 1.2rem;font-size:.88rem;background:#fff}
caption{text-align:left;font-weight:600;padding:.3rem 0}
th,td{border:1px solid #d6d6d6;padding:.2rem .5rem;text-align:left}
th{background:#eef1f5}.num{text-align:right;font-variant-numeric:tabular-nums}
td.num{white-space:nowrap}
.scroll{overflow-x:auto}
figure{margin:.6rem 0 1.6rem;background:#fff;padding:.4rem;border:1px solid #e3e3e3}
figure img{max-width:100%;height:auto;display:block;margin:auto}
figcaption{font-size:.9rem;color:#444;padding-top:.3rem}
.meta{color:#555}
"""


def _html_block(block: str | Table | Picture) -> str:
    """One block as HTML."""
    if isinstance(block, Table):
        return _html_table(block)
    if isinstance(block, Picture):
        data = base64.b64encode(block.png).decode("ascii")
        return (
            f'<figure><img src="data:image/png;base64,{data}" alt="{html.escape(block.alt)}">'
            f"<figcaption>{html.escape(block.caption)}</figcaption></figure>"
        )
    return f"<p>{html.escape(block)}</p>"


_NUMBER = re.compile(r"^[-+\u2212]?[\d,]*\.?\d+%?$|^–$|^\d+\.\d–\d+\.\d%$")
"""A number, a share, a dash for none, or an interval (``'46.0–54.0%'``): right-aligned."""


def _html_table(table: Table) -> str:
    """A table with a caption; numeric columns right-aligned, text columns left-aligned."""
    frame = table.frame
    numeric = [all(_NUMBER.match(str(v)) for v in frame[c]) for c in frame.columns]
    align = ['class="num"' if flag else "" for flag in numeric]
    head = "".join(
        f"<th {a}>{html.escape(str(c))}</th>" for c, a in zip(frame.columns, align, strict=True)
    )
    rows = "".join(
        "<tr>"
        + "".join(f"<td {a}>{html.escape(str(v))}</td>" for v, a in zip(row, align, strict=True))
        + "</tr>"
        for row in frame.itertuples(index=False)
    )
    return (
        f'<div class="scroll"><table><caption>{html.escape(table.caption)}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div>"
    )


def render_html(sections: list[Section], title: str, meta: str) -> str:
    """The whole report as one self-contained HTML page."""
    toc = "".join(f'<li><a href="#{s.anchor}">{html.escape(s.title)}</a></li>' for s in sections)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body><main>",
        f'<h1>{html.escape(title)}</h1><p class="meta">{html.escape(meta)}</p>',
        f"<nav><ol>{toc}</ol></nav>",
    ]
    for section in sections:
        parts.append(f'<section id="{section.anchor}"><h2>{html.escape(section.title)}</h2>')
        parts.extend(_html_block(block) for block in section.blocks)
        parts.append("</section>")
    parts.append("</main></body></html>\n")
    return "\n".join(parts)


def _md_cell(text: str) -> str:
    return markdown_text(text.replace("\n", " ")).replace("|", "\\|")


def _md_block(block: str | Table | Picture) -> str:
    """One block as Markdown (figures as data: URIs, so the file stays self-contained)."""
    if isinstance(block, Table):
        header = "| " + " | ".join(_md_cell(str(c)) for c in block.frame.columns) + " |"
        rule = "|" + "|".join("---" for _ in block.frame.columns) + "|"
        rows = [
            "| " + " | ".join(_md_cell(str(v)) for v in row) + " |"
            for row in block.frame.itertuples(index=False)
        ]
        return "\n".join([f"**{markdown_text(block.caption)}**", "", header, rule, *rows])
    if isinstance(block, Picture):
        data = base64.b64encode(block.png).decode("ascii")
        alt, caption = markdown_text(block.alt), markdown_text(block.caption)
        return f"![{alt}](data:image/png;base64,{data})\n\n*{caption}*"
    return markdown_text(block)


def render_markdown(sections: list[Section], title: str, meta: str) -> str:
    """The whole report as one Markdown document."""
    parts = [f"# {markdown_text(title)}", "", markdown_text(meta), ""]
    for section in sections:
        parts.extend([f"## {markdown_text(section.title)}", ""])
        for block in section.blocks:
            parts.extend([_md_block(block), ""])
    return "\n".join(parts)

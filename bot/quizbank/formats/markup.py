"""Text as Discord shows it, from the text formats a quiz file may use.

Moodle writes a text in one of four formats (GIFT's `[html]`, `[moodle]`, `[plain]`,
`[markdown]`). Discord shows markdown, so:

- HTML becomes markdown with markdownify (a well-kept HTML-to-markdown library):
  paragraphs and `<br>` are line breaks, `<b>` bold, `<i>` italics, `<code>` and `<pre>`
  code, lists `- item`, links `text (url)` (the address visible), entities decoded.
  Images (`<img>`, Moodle's `@@PLUGINFILE@@` files) cannot come along: they are dropped
  and named, so the caller can warn.
- Moodle's own format is text whose line breaks are line breaks and which may hold HTML
  (Moodle shows its tags as formatting): with HTML in it, it is read as HTML with each
  line break a `<br>`; without, it stays as written.
- Plain text and markdown stay as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from bs4 import BeautifulSoup
from markdownify import MarkdownConverter

TextFormat = Literal["moodle", "html", "plain", "markdown"]
TEXT_FORMATS: tuple[TextFormat, ...] = ("moodle", "html", "plain", "markdown")

# An HTML element Moodle's editor writes, or an entity: then a text is read as HTML.
# Bounded and anchored at `<` or `&`: linear in the text.
_HTML_HINT = re.compile(
    r"<(?:/?(?:p|br|b|strong|i|em|u|s|code|pre|ul|ol|li|a|img|div|span|sub|sup|h[1-6]|table|"
    r"tr|td|th|blockquote|hr|tt|kbd|font)(?=[\s/>]))"
    r"|&(?:[a-zA-Z]{2,8}|#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6});"
)
PLUGINFILE = "@@PLUGINFILE@@"
# The missing word's gap, kept as it is through the conversion (not escaped as markdown).
GAP = "_____"
_GAP_HELD = "\ue020"


@dataclass
class Converted:
    text: str
    images: list[str] = field(default_factory=list)  # the dropped images' names


class _Discord(MarkdownConverter):
    """markdownify's converter with links shown as `text (url)` and images dropped."""

    def __init__(self, images: list[str], **options: Any) -> None:
        super().__init__(**options)
        self.images = images

    def convert_a(self, el: Any, text: str, parent_tags: Any) -> str:
        href = (el.get("href") or "").strip()
        shown = text.strip()
        if not href or href.startswith(PLUGINFILE):
            return text
        if not shown or shown == href:
            return href
        return f"{shown} ({href})"

    def convert_img(self, el: Any, text: str, parent_tags: Any) -> str:
        src = (el.get("src") or "").strip()
        name = src.rsplit("/", 1)[-1] or el.get("alt") or "image"
        self.images.append(name)
        return ""


def looks_like_html(text: str) -> bool:
    return _HTML_HINT.search(text) is not None


def html_to_markdown(html: str) -> Converted:
    images: list[str] = []
    converter = _Discord(
        images,
        heading_style="ATX",
        bullets="-",
        newline_style="backslash",
        strong_em_symbol="*",
    )
    soup = BeautifulSoup(html.replace(GAP, _GAP_HELD), "html.parser")
    try:
        markdown = converter.convert_soup(soup)
    except RecursionError:  # elements nested thousands deep: their text, unformatted
        markdown = soup.get_text("\n")
    text = _tidy(markdown.replace("\\\n", "\n")).replace(_GAP_HELD, GAP)
    return Converted(text, images)


def _tidy(text: str) -> str:
    """No-break spaces as spaces, no trailing spaces, at most one blank line in a row."""
    lines = [line.rstrip() for line in text.replace("\xa0", " ").splitlines()]
    out: list[str] = []
    for line in lines:
        if not line and (not out or not out[-1]):
            continue
        out.append(line)
    return "\n".join(out).strip()


def to_discord(text: str, fmt: TextFormat) -> Converted:
    """`text` written in `fmt` as the markdown Discord shows."""
    if fmt == "html":
        return html_to_markdown(text)
    if fmt == "moodle" and looks_like_html(text):
        return html_to_markdown("<br>".join(text.splitlines()))
    images = [PLUGINFILE] if PLUGINFILE in text else []
    return Converted(text.strip(), images)

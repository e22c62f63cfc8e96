"""A fetched body as text for the model: an HTML page's main text as Markdown, a PDF's text, text as is.

trafilatura finds the main text of a page (navigation, footers, cookie banners and sidebars left out);
a fragment too small for it to judge goes through markdownify with the page furniture removed.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass

from engine.tools.errors import ToolError

HTML_TYPES = ("text/html", "application/xhtml+xml")
TEXT_TYPES = ("text/", "application/json", "application/xml", "application/javascript", "application/x-yaml")
PDF_TYPES = ("application/pdf", "application/x-pdf")
_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_FURNITURE = ("script", "style", "nav", "footer", "header", "aside", "form", "noscript", "iframe", "svg")


@dataclass(frozen=True)
class Extracted:
    text: str
    title: str = ""
    kind: str = "text"  # html | pdf | text


def kind_of(content_type: str) -> str:
    """html, pdf or text for a Content-Type header; '' for what web_fetch does not read."""
    media = content_type.split(";")[0].strip().lower()
    if media in HTML_TYPES:
        return "html"
    if media in PDF_TYPES:
        return "pdf"
    if not media or media.startswith(TEXT_TYPES) or media.endswith(("+json", "+xml")):
        return "text"
    return ""


def sniff(body: bytes) -> str:
    """The kind of a body sent without a Content-Type (or as application/octet-stream)."""
    head = body[:512].lstrip().lower()
    if head.startswith(b"%pdf-"):
        return "pdf"
    if head.startswith((b"<!doctype html", b"<html")) or b"<body" in head:
        return "html"
    return "text" if b"\x00" not in body[:4096] else ""


def decode(body: bytes, charset: str | None) -> str:
    try:
        return body.decode(charset or "utf-8", errors="replace")
    except LookupError:  # a charset Python does not know
        return body.decode("utf-8", errors="replace")


def extract(body: bytes, kind: str, charset: str | None, url: str) -> Extracted:
    if kind == "pdf":
        return Extracted(pdf_text(body), kind="pdf")
    text = decode(body, charset)
    if kind == "html":
        return html_markdown(text, url)
    return Extracted(text, kind="text")


def html_markdown(html: str, url: str = "") -> Extracted:
    """The page's main text as Markdown, and its title."""
    import trafilatura

    found = _TITLE.search(html)
    title = re.sub(r"\s+", " ", found.group(1)).strip() if found else ""
    main = trafilatura.extract(
        html,
        url=url or None,
        output_format="markdown",
        include_links=True,
        include_formatting=True,
        include_tables=True,
        include_comments=False,
        favor_precision=True,
    )
    if main and main.strip():
        return Extracted(main.strip(), title, "html")
    return Extracted(fragment_markdown(html), title, "html")


def fragment_markdown(html: str) -> str:
    """Markdown of HTML too small or too odd for trafilatura, without scripts and page furniture."""
    from bs4 import BeautifulSoup
    from markdownify import MarkdownConverter

    soup = BeautifulSoup(html, "html.parser")
    for tag in soup(list(_FURNITURE)):
        tag.decompose()
    text = MarkdownConverter(heading_style="ATX", strip=["img"]).convert_soup(soup)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def pdf_text(body: bytes) -> str:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(body))
        if reader.is_encrypted:
            raise ToolError("The PDF is encrypted; web_fetch cannot read it.")
        pages = [(page.extract_text() or "").strip() for page in reader.pages]
    except PdfReadError as exc:
        raise ToolError(f"The PDF could not be read: {exc}.") from None
    if not any(pages):
        return "[The PDF has no text layer (scanned pages?); nothing to read.]"
    if len(pages) == 1:
        return pages[0]
    return "\n\n".join(f"[page {n}]\n{text}" for n, text in enumerate(pages, 1))

"""Decoded layers of a text: the readable sentences hidden in base64, base32, hex, percent-encoding,
HTML entities, escapes, ROT13, reversed text and Unicode tag characters.

A run is decoded only when it is long enough to hide a sentence and decodes to readable text; ROT13
is tried on any text whose ROT13 reads more like a language than the text itself does. The scanner
scans each decoded layer again, to a bounded depth.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import codecs
import html
import re
import urllib.parse

MIN_ENCODED = 16  # shorter runs decode to a few words at most

_BASE64 = re.compile(rf"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{{{MIN_ENCODED},}}={{0,2}}(?![A-Za-z0-9+/=_-])")
_BASE32 = re.compile(r"(?<![A-Za-z0-9])[A-Z2-7]{24,}={0,6}(?![A-Za-z0-9=])")
_NOT_BASE64 = re.compile(r"[^A-Za-z0-9+/=_-]+")
_HEX_ESCAPES = re.compile(r"(?:\\x[0-9a-fA-F]{2}){6,}")
_OCTAL_ESCAPES = re.compile(r"(?:\\[0-3][0-7]{2}){4,}")
_HEX = re.compile(r"\b(?:[0-9a-fA-F]{2}){12,}\b")
_PERCENT = re.compile(r"(?:%[0-9a-fA-F]{2}){6,}")
_PERCENT_ANY = re.compile(r"%[0-9a-fA-F]{2}")
_ENTITY = re.compile(r"&(?:#\d{1,7}|#x[0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,30});")
_PERCENT_WORD = re.compile(r"\S*%[0-9a-fA-F]{2}\S*")
_ENTITY_RUN = re.compile(r"(?:&(?:#\d{1,7}|#x[0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,30});[^&\n]{0,3}){4,}")
_UNICODE_ESC = re.compile(r"(?:\\u[0-9a-fA-F]{4}){4,}")
_ASKS_REVERSE = re.compile(r"\brevers(?:e|ed)\b|\bbackwards?\b|\bright[- ]to[- ]left\b", re.IGNORECASE)
_TAG_RUN = re.compile("[\U000e0020-\U000e007e]{4,}")
_NEWLINE = re.compile("\n")
_ASCII_WORD = re.compile(r"[A-Za-z]{2,}")
# Short words frequent in running text of the languages the scanner reads in Latin letters: a text
# whose ROT13 is full of them (and which is not) is ROT13.
_COMMON_WORDS = frozenset(
    [
        "the",
        "you",
        "your",
        "and",
        "to",
        "of",
        "all",
        "is",
        "are",
        "for",
        "this",
        "that",
        "with",
        "not",
        "be",
        "it",
        "on",
        "in",
        "as",
        "at",
        "or",
        "any",
        "from",
        "now",
        "was",
        "were",
        "has",
        "have",
        "will",
        "can",
        "but",
        "what",
        "when",
        "if",
        "do",
        "does",
        "by",
        "an",
        "my",
        "me",
        "we",
        "our",
        "they",
        "their",
        "his",
        "her",
        "so",
        "no",
        "yes",
        "there",
        "here",
        "which",
        "who",
        "how",
        "also",
        "then",
        "than",
        "into",
        "only",
        "every",
        "always",
        "never",
        "please",
        "der",
        "die",
        "das",
        "und",
        "ist",
        "nicht",
        "mit",
        "den",
        "ein",
        "eine",
        "les",
        "des",
        "est",
        "pas",
        "une",
        "que",
        "los",
        "las",
        "por",
        "con",
        "una",
        "och",
        "att",
        "det",
        "som",
    ]
)
_ROT13 = str.maketrans(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "nopqrstuvwxyzabcdefghijklmNOPQRSTUVWXYZABCDEFGHIJKLM",
)
MIN_ENTITIES = 4  # fewer HTML entities are markup, not a hidden sentence
MIN_PERCENT_ESCAPES = 4
ROT13_WHOLE_MAX = 2000  # a longer text is judged line by line only


def _printable(decoded: str) -> bool:
    if len(decoded) < 8:
        return False
    good = sum(1 for ch in decoded if ch.isprintable() or ch in "\n\t")
    letters = sum(1 for ch in decoded if ch.isalpha() or ch == " ")
    return good / len(decoded) >= 0.95 and letters / len(decoded) >= 0.6


def _decode_base64(run: str) -> str | None:
    """The text a base64 run encodes; inside a URL path, each `/` segment is tried on its own too."""
    decoded = _decode_base64_run(run)
    if decoded is None and "/" in run:
        for segment in run.split("/"):
            if len(segment) >= MIN_ENCODED:
                decoded = _decode_base64_run(segment)
                if decoded:
                    break
    return decoded


def _decode_base64_run(run: str) -> str | None:
    padded = run.rstrip("=")
    padded += "=" * (-len(padded) % 4)
    for decoder in (base64.b64decode, base64.urlsafe_b64decode):
        try:
            data = decoder(padded)
        except (binascii.Error, ValueError):
            continue
        # UTF-16 (little-endian) is how PowerShell's -EncodedCommand carries its script
        encoding = "utf-16-le" if len(data) >= 4 and data[1::2].count(0) >= len(data) // 4 else "utf-8"
        try:
            decoded = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        if _printable(decoded):
            return decoded
    return None


def _decode_base32(run: str) -> str | None:
    padded = run.rstrip("=")
    padded += "=" * (-len(padded) % 8)
    try:
        decoded = base64.b32decode(padded).decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return None
    return decoded if _printable(decoded) else None


def _decode_hex(run: str) -> str | None:
    try:
        decoded = bytes.fromhex(run.replace("\\x", "")).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return None
    return decoded if _printable(decoded) else None


def _decode_octal(run: str) -> str | None:
    try:
        decoded = bytes(int(code, 8) for code in run.split("\\")[1:]).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return None
    return decoded if len(decoded) >= 4 else None


def _decode_percent(run: str) -> str | None:
    try:
        decoded = urllib.parse.unquote(run, errors="strict")
    except UnicodeDecodeError:
        return None
    return decoded if _printable(decoded) else None


def _decode_unicode_escapes(run: str) -> str | None:
    try:
        decoded = run.encode("ascii").decode("unicode_escape")
    except UnicodeDecodeError:
        return None
    return decoded if _printable(decoded) else None


_DECODERS = (  # kind, finder, decoder, a substring that must be present (None: a long token)
    ("base64", _BASE64, _decode_base64, None),
    ("base32", _BASE32, _decode_base32, None),
    ("hex", _HEX, _decode_hex, None),
    ("hex escapes", _HEX_ESCAPES, _decode_hex, "\\x"),
    ("octal escapes", _OCTAL_ESCAPES, _decode_octal, "\\"),
    ("percent-encoding", _PERCENT, _decode_percent, "%"),
    ("unicode escapes", _UNICODE_ESC, _decode_unicode_escapes, "\\u"),
)


def _line_at(newlines: list[int], offset: int) -> int:
    return bisect.bisect_right(newlines, offset - 1) + 1


def looks_rot13(text: str) -> bool:
    """True when the ROT13 of the text has clearly more common words than the text itself."""
    lower = text.lower()
    words = _ASCII_WORD.findall(lower)
    if len(words) < 4:
        return False
    plain = sum(1 for w in words if w in _COMMON_WORDS)
    turned = sum(1 for w in _ASCII_WORD.findall(lower.translate(_ROT13)) if w in _COMMON_WORDS)
    return turned >= 2 and turned >= 0.2 * len(words) and turned >= 3 * plain + 2


def _rot13_layers(view: str) -> list[tuple[str, str, str, int]]:
    """Each line that reads as ROT13 (or the whole text, when only together its lines do)."""
    if not _ASCII_WORD.search(view):
        return []
    found = [
        ("rot13", line, codecs.encode(line, "rot13"), number)
        for number, line in enumerate(view.split("\n"), start=1)
        if looks_rot13(line)
    ]
    if not found and "\n" in view and len(view) <= ROT13_WHOLE_MAX and looks_rot13(view):
        found.append(("rot13", view, codecs.encode(view, "rot13"), 1))
    return found


def hidden_payloads(raw: str, view: str) -> list[tuple[str, str, str, int]]:
    """(kind, encoded text, decoded text, line) for every encoded layer that decodes to readable text."""
    payloads: list[tuple[str, str, str, int]] = []
    newlines: list[int] | None = None
    # Cheap first: is there any run of base64 alphabet long enough to hold a payload?
    long_token = any(len(t) >= MIN_ENCODED for t in view.split()) and any(
        len(t) >= MIN_ENCODED for t in _NOT_BASE64.split(view)
    )
    for kind, finder, decode, hint in _DECODERS:
        if not (long_token if hint is None else hint in view):
            continue
        for m in finder.finditer(view):
            decoded = decode(m.group(0))
            if decoded:
                newlines = _line_finder(view) if newlines is None else newlines
                payloads.append((kind, m.group(0), decoded, _line_at(newlines, m.start())))
    if "%" in view:  # a word full of escapes: `your%20instructions%20are…`
        for m in _PERCENT_WORD.finditer(view):
            if len(_PERCENT_ANY.findall(m.group())) >= MIN_PERCENT_ESCAPES:
                decoded = _decode_percent(m.group())
                if decoded and decoded != m.group():
                    newlines = _line_finder(view) if newlines is None else newlines
                    payloads.append(("percent-encoding", m.group(), decoded, _line_at(newlines, m.start())))
    if "&" in view:  # a run of entities with at most a few characters between them
        for m in _ENTITY_RUN.finditer(view):
            if len(_ENTITY.findall(m.group())) >= MIN_ENTITIES:
                decoded = html.unescape(m.group())
                newlines = _line_finder(view) if newlines is None else newlines
                payloads.append(("HTML entities", m.group(), decoded, _line_at(newlines, m.start())))
    payloads += _rot13_layers(view)
    if _ASKS_REVERSE.search(view):  # the request and the text it points at: its line and the next two
        lines = view.split("\n")
        asked_on = {
            _line_at(newlines or _line_finder(view), m.start()) - 1 for m in _ASKS_REVERSE.finditer(view)
        }
        for number in sorted(asked_on):
            nearby = "\n".join(lines[number : number + 3])
            payloads.append(("reversed text", nearby, nearby[::-1], number + 1))
    if not raw.isascii():
        raw_newlines = _line_finder(raw)
        for m in _TAG_RUN.finditer(raw):
            hidden = "".join(chr(ord(ch) - 0xE0000) for ch in m.group(0))
            payloads.append(("unicode tag characters", hidden, hidden, _line_at(raw_newlines, m.start())))
    return payloads


def _line_finder(text: str) -> list[int]:
    return [m.start() for m in _NEWLINE.finditer(text)]

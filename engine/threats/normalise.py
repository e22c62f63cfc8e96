"""What a text says once its disguises are taken off: blank and invisible characters, look-alike letters.

Characters are classed by their Unicode properties, not by a list of known tricks: every separator
(categories Zs, Zl, Zp) reads as a space or a line break; every format character (Cf), control
character (Cc) and default-ignorable code point (Hangul fillers, variation selectors, tag characters,
the Mongolian vowel separator, …) is dropped, except the few blank-looking ones that stand between
words (Hangul fillers, the braille blank), which read as spaces. The class tables are built once, on
first use, from `unicodedata` over the planes that hold such characters.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from itertools import chain

# Default_Ignorable_Code_Point beyond the Cf category (Unicode's DerivedCoreProperties.txt).
_OTHER_IGNORABLE = (
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x115F, 0x1160),  # Hangul choseong / jungseong fillers
    (0x17B4, 0x17B5),  # Khmer inherent vowels
    (0x180B, 0x180F),  # Mongolian free variation selectors and vowel separator
    (0x2065, 0x2065),
    (0x3164, 0x3164),  # Hangul filler
    (0xFE00, 0xFE0F),  # variation selectors
    (0xFFA0, 0xFFA0),  # half-width Hangul filler
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),  # shorthand format controls
    (0x1D173, 0x1D17A),  # musical symbol format controls
    (0xE0000, 0xE0FFF),  # tags and variation selectors supplement
)
# Characters that draw nothing but take a letter's width: between words they are the space.
_BLANK_LOOKING = frozenset({0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800})
# Format characters that are visible signs in their scripts (Arabic number signs and the like).
_VISIBLE_FORMAT = frozenset(
    chain(range(0x0600, 0x0606), (0x06DD, 0x070F, 0x08E2, 0x110BD, 0x110CD), range(0xFFF9, 0xFFFC))
)
# Joiners and selectors that are how emoji and some scripts are spelled: dropped, and reported only
# where they spell nothing (a joiner that does not join two emoji, a selector after a Latin letter).
_SPELLING = frozenset({0x00AD, 0x200D, 0xFE0E, 0xFE0F})
_EMOJI_JOINER, _EMOJI_SELECTORS = "\u200d", "\ufe0e\ufe0f"
_PLANES = (range(0x0000, 0x20000), range(0xE0000, 0xE1000))

_COMBINING_MARKS = re.compile(
    "[\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u064b-\u065f\u0670\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff"
    "\ufe20-\ufe2f]"
)

# Letters from other scripts that look like Latin ones (the common part of Unicode's confusables).
_CONFUSABLES = str.maketrans(
    {
        **dict(zip("аеорсухіјѕԁԛԝүһӏкмнтвьɡ", "aeopcyxijsdqwyhlkmhtbbg", strict=True)),
        **dict(zip("АВЕКМНОРСТХІЈЅҮԌ", "ABEKMHOPCTXIJSYG", strict=True)),
        **dict(zip("αεικνορτυχγβϲϳ", "aeikvoptuxybcj", strict=True)),
        **dict(zip("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧϹ", "ABEZHIKMNOPTYXC", strict=True)),
        **dict(zip("օսցհոıȷɑɩʟ", "oughnijail", strict=True)),
        **dict(zip("ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏᴢ", "abcdefghijklmnoprstuvwyz", strict=True)),
    }
)
_CONFUSABLE_LETTERS = frozenset(chr(cp) for cp in _CONFUSABLES)
_WORD_WITH_OTHER_LETTERS = re.compile(r"[^\W\d_]*[^\x00-\x7f][^\W\d_]*")


@functools.cache
def _tables() -> tuple[dict[int, str], dict[int, str], re.Pattern[str]]:
    """(drop-or-space table, the same with zero-width characters as spaces, regex of hidden characters)."""
    table: dict[int, str] = {}
    hidden: list[int] = []
    for cp in chain(*_PLANES):
        if cp in (9, 10, 13):
            continue
        category = unicodedata.category(chr(cp))
        if category == "Zs":
            if cp != 0x20:
                table[cp] = " "
        elif category in ("Zl", "Zp"):
            table[cp] = "\n"
        elif category == "Cc" or (category == "Cf" and cp not in _VISIBLE_FORMAT):
            table[cp] = ""
            if cp != 0x00AD:
                hidden.append(cp)
    for first, last in _OTHER_IGNORABLE:
        for cp in range(first, last + 1):
            table[cp] = ""
            hidden.append(cp)
    for cp in _BLANK_LOOKING:
        table[cp] = " "
        hidden.append(cp)
    spaced = {cp: (" " if value == "" and cp not in _SPELLING else value) for cp, value in table.items()}
    return table, spaced, re.compile("[" + "".join(_ranges(sorted(set(hidden)))) + "]")


def _ranges(points: list[int]) -> list[str]:
    out: list[str] = []
    start = prev = points[0]
    for cp in [*points[1:], -1]:
        if cp == prev + 1:
            prev = cp
            continue
        out.append(
            re.escape(chr(start)) if start == prev else f"{re.escape(chr(start))}-{re.escape(chr(prev))}"
        )
        start = prev = cp
    return out


def hidden_characters(text: str) -> list[tuple[int, str]]:
    """(offset, character) of every invisible, control or blank-looking character that is not spelling.

    A zero-width joiner between two emoji and a variation selector after a symbol are how emoji are
    written; they are left out, as are tab, line feed and carriage return.
    """
    if text.isascii() and text.isprintable():
        return []
    pattern = _tables()[2]
    return [(m.start(), m.group()) for m in pattern.finditer(text) if not _spells(text, m.start())]


def _spells(text: str, index: int) -> bool:
    """A zero-width joiner inside an emoji sequence, or a variation selector after a symbol or digit."""
    char = text[index]
    before = text[index - 1] if index else ""
    if char == _EMOJI_JOINER:
        after = text[index + 1] if index + 1 < len(text) else ""
        return (
            bool(before and after) and (ord(before) >= 0x2190 or before == "\ufe0f") and ord(after) >= 0x2190
        )
    if char in _EMOJI_SELECTORS:
        return bool(before) and not (before.isascii() and before.isalpha())
    return False


def has_hidden(text: str) -> bool:
    return bool(hidden_characters(text))


def normalise(text: str, zero_width_as_space: bool = False) -> str:
    """NFKC with separators as spaces and invisible characters dropped (or, asked, read as spaces)."""
    if text.isascii() and text.isprintable():
        return text
    table, spaced, _ = _tables()
    return unicodedata.normalize("NFKC", text.translate(spaced if zero_width_as_space else table))


def strip_marks(text: str) -> str:
    """Accents and other combining marks off (Hebrew points, Arabic vowel signs), letters recomposed."""
    if text.isascii():
        return text
    return unicodedata.normalize("NFC", _COMBINING_MARKS.sub("", unicodedata.normalize("NFD", text)))


def skeleton_word(word: str) -> str:
    """A word with its look-alike letters from other scripts read as the Latin ones."""
    return strip_marks(word.translate(_CONFUSABLES))


def skeleton(text: str) -> str:
    """The text with each word that could be a Latin word in disguise spelled in Latin letters.

    A word is rewritten when it mixes Latin with other letters, or when every one of its non-Latin
    letters has a Latin look-alike (`Іgnоrе` in Cyrillic); ordinary Greek or Russian words keep theirs.
    """
    if text.isascii():
        return text

    def fold(match: re.Match[str]) -> str:
        word = match.group(0)
        others = [ch for ch in word if not ch.isascii()]
        if len(others) < len(word) or all(ch in _CONFUSABLE_LETTERS for ch in others):
            return skeleton_word(word)
        return word

    return _WORD_WITH_OTHER_LETTERS.sub(fold, text)


def mixed_script_words(text: str) -> list[str]:
    """Words that mix Latin letters with look-alike letters of another script (`pаssword`)."""
    if text.isascii():
        return []
    found = []
    for match in _WORD_WITH_OTHER_LETTERS.finditer(text):
        word = match.group(0)
        latin = sum(1 for ch in word if ch.isascii())
        foreign = any(ch in _CONFUSABLE_LETTERS and "\u0370" <= ch <= "\u058f" for ch in word)
        if latin >= 1 and len(word) >= 4 and foreign:  # Greek, Cyrillic or Armenian inside a Latin word
            found.append(word)
    return found


_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u02bc": "'", "\u201c": '"', "\u201d": '"'})


def keep_accents(text: str) -> str:
    """Lower-case with accents kept, curly quotes straight (how short vocabulary words are matched)."""
    if text.isascii():
        return text.lower()
    return unicodedata.normalize("NFC", text.casefold().translate(_QUOTES))


def fold_for_matching(text: str) -> str:
    """Lower-case without accents, curly quotes straight: how the intent vocabularies are matched."""
    if text.isascii():
        return text.lower()
    return strip_marks(text.casefold().translate(_QUOTES))

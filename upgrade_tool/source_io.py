"""Bytes <-> text for Python source, so that an upgraded file differs from the original only where
the refactors changed code.

What is kept exactly: the encoding (PEP 263 coding cookie, else UTF-8), a UTF-8 byte order mark,
the newline style of every line (LF, CRLF, lone CR, or a mix), and a missing final newline. The
text handed to the refactors keeps the newlines as they are in the file (libcst reproduces them);
only files whose every line ends in a lone CR are translated to LF and back, because libcst cannot
reproduce those.
"""
from __future__ import annotations

import codecs
import io
import re
import tokenize
from dataclasses import dataclass

BOM = codecs.BOM_UTF8

# Newline styles, as reported and as used to restore a file.
LF, CRLF, CR, MIXED, NONE = "LF", "CRLF", "CR", "mixed", "none"

_NEWLINE = re.compile(r"\r\n|\r|\n")


class SourceError(Exception):
    """The file cannot be handled as text; the message is one line naming the reason."""


class BinaryContent(SourceError):
    """The bytes are not text (NUL bytes): not Python source, whatever the file is called."""


@dataclass(frozen=True)
class Decoded:
    """A source file's text and everything needed to write it back byte for byte."""

    text: str  # without the BOM; newlines exactly as in the file
    encoding: str  # the Python codec name used to decode (and to encode back)
    bom: bool
    newline: str  # LF, CRLF, CR, mixed or none

    @property
    def final_newline(self) -> bool:
        return self.text.endswith(("\n", "\r"))


def newline_style(text: str) -> str:
    """LF, CRLF, CR, mixed (more than one kind), or none (a single line without newline)."""
    kinds = {m.group() for m in _NEWLINE.finditer(text)}
    if not kinds:
        return NONE
    if len(kinds) > 1:
        return MIXED
    return {"\n": LF, "\r\n": CRLF, "\r": CR}[kinds.pop()]


def decode(data: bytes) -> Decoded:
    """Decode Python source bytes the way the interpreter does (BOM, PEP 263 cookie, else UTF-8).

    Raises BinaryContent for NUL bytes (CPython refuses them too) and SourceError when the bytes
    do not decode with the declared encoding.
    """
    if b"\x00" in data:
        raise BinaryContent("binary content (NUL bytes): not Python source")
    # tokenize reads "lines" up to b"\n" only; CPython also ends a line at a lone CR
    head = data[:4096].replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(head).readline)
    except SyntaxError as exc:
        if _has_cookie(data):  # an unknown codec in the cookie, or a BOM with a non-UTF-8 cookie
            raise SourceError(f"bad encoding declaration: {exc}") from None
        encoding = "utf-8"  # the first lines are not UTF-8: let the decode below say where
    bom = data.startswith(BOM)
    if encoding == "utf-8-sig":
        encoding = "utf-8"
    body = data[len(BOM):] if bom else data
    try:
        text = body.decode(encoding)
    except UnicodeDecodeError as exc:
        declared = "declared" if _has_cookie(data) else "default (no PEP 263 coding cookie)"
        raise SourceError(
            f"cannot decode as {encoding}, the {declared} encoding: byte 0x{body[exc.start]:02x} "
            f"at offset {exc.start + (len(BOM) if bom else 0)}") from None
    except LookupError:
        raise SourceError(f"unknown encoding {encoding!r}") from None
    return Decoded(text=text, encoding=encoding, bom=bom, newline=newline_style(text))


def _has_cookie(data: bytes) -> bool:
    first_two = b"\n".join(data[:4096].splitlines()[:2])
    return re.search(rb"^[ \t\f]*#.*?coding[:=]", first_two, re.MULTILINE) is not None


def encode(text: str, decoded: Decoded) -> bytes:
    """Encode upgraded text the way the original was stored; SourceError if it cannot be."""
    try:
        body = text.encode(decoded.encoding)
    except UnicodeEncodeError as exc:
        raise SourceError(
            f"the upgraded code has {text[exc.start]!r}, which {decoded.encoding} cannot store") from None
    return (BOM if decoded.bom else b"") + body


def to_parser_text(decoded: Decoded) -> str:
    """The text to give libcst: lone-CR files are translated to LF (libcst drops a final lone CR)."""
    return decoded.text.replace("\r", "\n") if decoded.newline == CR else decoded.text


def from_parser_text(text: str, decoded: Decoded) -> str:
    """Undo `to_parser_text` on the upgraded text."""
    return text.replace("\n", "\r") if decoded.newline == CR else text


"""Jupyter notebooks: upgrade the code cells, leave everything else exactly as it was.

- All code cells are upgraded together as one module, because a notebook is one namespace: an
  `import paddle.fluid as fluid` in the first cell is what makes `fluid.layers.relu` in the fifth a
  legacy API. Each cell is preceded by a marker statement, and the result is cut back into cells.
- IPython syntax (`%magic`, `!shell`, `x = !cmd`, `obj?`) is swapped for a placeholder name before
  parsing and put back, character for character, afterwards. A `%%cell_magic` cell and a cell that
  still does not parse are left exactly as they were (the latter is reported).
- Outputs, metadata and markdown cells are never touched. The JSON is written back with the layout
  it was read with (indent, key order, ASCII escaping, final newline); an untouched notebook is
  byte-identical because it is not written at all.
"""
from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field, replace
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

from refactors import findings as F
from refactors.findings import Finding
from upgrade_tool import pipeline
from upgrade_tool.pipeline import FileFailure, SiteInfo
from upgrade_tool.source_io import BOM, SourceError

_MAGIC_PLACEHOLDER = "_paddle_upgrade_magic_{}_"
_MAGIC_BACK = re.compile(r"^([ \t]*)_paddle_upgrade_magic_(\d+)_$")
_CELL_MARKER = "_paddle_upgrade_cell_({})\n"
_CELL_SPLIT = re.compile(r"^_paddle_upgrade_cell_\((\d+)\)\r?\n", re.MULTILINE)
_ASSIGN_MAGIC = re.compile(r"[A-Za-z_][\w.]*(\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*[%!]")
_HELP = re.compile(r"\?{0,2}[\w.*\[\]]+\?{0,2}")
_KEEPER = "_paddle_upgrade_keep_({})\n"
_IDENT = re.compile(r"[A-Za-z_]\w*")
_NEWLINES = re.compile(r"\r\n|\r|\n")


class NotANotebook(SourceError):
    """Not a notebook this tool can edit (bad JSON, nbformat 3, another language)."""


def is_magic(line: str) -> bool:
    """IPython-only syntax on one line: `%magic`, `!cmd`, `x = !cmd`, `?obj`, `obj??`."""
    stripped = line.strip()
    if not stripped:
        return False
    if stripped[0] in "%!?":
        return True
    if _ASSIGN_MAGIC.match(stripped):
        return True
    return "?" in stripped and _HELP.fullmatch(stripped) is not None


@dataclass
class _Cell:
    index: int  # position in nb["cells"], 0-based
    original: Any  # the `source` value as stored (list of lines or a string)
    text: str
    masked: str = ""
    magics: Dict[int, str] = field(default_factory=dict)  # placeholder number -> original line body
    start_line: int = 0  # first line of the cell's text in the combined module
    added_newline: bool = False


@dataclass
class NotebookOutcome:
    data: bytes
    findings: List[Finding]
    sites: List[SiteInfo]
    fast_failure: str = ""  # see pipeline.TextOutcome


def _cell_text(source: Any) -> str:
    return "".join(source) if isinstance(source, list) else str(source)


def _mask(cell: _Cell, counter: List[int]) -> None:
    out = []
    for line in cell.text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        if is_magic(body):
            number = counter[0]
            counter[0] += 1
            indent = body[: len(body) - len(body.lstrip())]
            cell.magics[number] = body[len(indent):]
            out.append(indent + _MAGIC_PLACEHOLDER.format(number) + line[len(body):])
        else:
            out.append(line)
    cell.masked = "".join(out)


def _unmask(text: str, magics: Dict[int, str]) -> str:
    out = []
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        m = _MAGIC_BACK.match(body)
        if m and int(m.group(2)) in magics:
            # keep the indentation the upgrade gave the line (an unwrapped `with` dedents it)
            out.append(m.group(1) + magics[int(m.group(2))] + line[len(body):])
        else:
            out.append(line)
    return "".join(out)


def _layout(text: str, nb: Any) -> Optional[Dict[str, Any]]:
    """json.dumps options that reproduce `text` exactly from `nb`, or None."""
    m = re.match(r"\{\n([ \t]+)\"", text)
    indents: Sequence[Any] = [m.group(1)] if m else [None]
    tail = text[len(text.rstrip("\n")):]
    for indent in indents:
        for ensure_ascii in (False, True):
            options = {"indent": indent, "ensure_ascii": ensure_ascii}
            if json.dumps(nb, **options) + tail == text:
                return {**options, "tail": tail}
    return None


def load(data: bytes) -> Tuple[Dict[str, Any], str, bool]:
    """The notebook object, its JSON text and whether it had a BOM; NotANotebook if unusable."""
    bom = data.startswith(BOM)
    try:
        text = data[len(BOM):].decode("utf-8") if bom else data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SourceError(f"notebook is not UTF-8 JSON: byte 0x{data[exc.start]:02x} at offset {exc.start}") from None
    try:
        nb = json.loads(text)
    except json.JSONDecodeError as exc:
        raise NotANotebook(f"not valid notebook JSON: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        if isinstance(nb, dict) and "worksheets" in nb:
            raise NotANotebook("nbformat 3 notebook; open and save it in Jupyter to convert it to nbformat 4")
        raise NotANotebook("not a notebook: no list of cells")
    meta = nb.get("metadata") or {}
    language = ((meta.get("kernelspec") or {}).get("language")
                or (meta.get("language_info") or {}).get("name") or "python")
    if str(language).lower() != "python":
        raise NotANotebook(f"not a Python notebook (language: {language})")
    return nb, text, bom


def _import_names(code: str, paddle_only: bool = False) -> Set[str]:
    """Names bound by import statements anywhere in `code` (which parses); with `paddle_only`,
    only those bound by imports from paddle."""
    names: Set[str] = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            module = (node.module or "") if isinstance(node, ast.ImportFrom) else ""
            for alias in node.names:
                source = module or alias.name
                if alias.name != "*" and (not paddle_only or source.split(".")[0] == "paddle"):
                    names.add(alias.asname or alias.name.split(".")[0])
    return names


def _magic_line(cell: _Cell, number: int) -> int:
    placeholder = _MAGIC_PLACEHOLDER.format(number)
    for line_number, line in enumerate(_NEWLINES.split(cell.masked), 1):
        if line.strip() == placeholder:
            return line_number
    return 1


def _line_count(text: str) -> int:
    return len(_NEWLINES.findall(text)) + (0 if text.endswith(("\n", "\r")) or not text else 1)


def upgrade(data: bytes, names: Optional[Sequence[str]] = None, shim: bool = True) -> NotebookOutcome:
    """Upgrade a notebook's code cells; the bytes come back unchanged when nothing changed."""
    nb, text, bom = load(data)
    findings: List[Finding] = []
    counter = [0]
    candidates: List[_Cell] = []
    kept_aside: List[str] = []  # code we do not parse: magic lines, %% cells, cells that do not parse
    for index, raw in enumerate(nb["cells"]):
        if not isinstance(raw, dict) or raw.get("cell_type") != "code" or "source" not in raw:
            continue
        cell = _Cell(index, raw["source"], _cell_text(raw["source"]))
        if cell.text.lstrip().startswith("%%"):
            kept_aside.append(cell.text)  # a cell magic: the whole cell belongs to it
            continue
        _mask(cell, counter)
        kept_aside.extend(cell.magics.values())
        candidates.append(cell)
    if not any(pipeline.PADDLE_MARK in c.masked for c in candidates):
        return NotebookOutcome(data, findings, [])
    cells: List[_Cell] = []
    for cell in candidates:
        try:
            error = pipeline.syntax_error(cell.masked)
        except FileFailure as exc:
            error = SyntaxError(str(exc))
        if error is not None:
            findings.append(Finding("", error.lineno or 1, 1, F.SKIPPED, "warning",
                                    f"cell {cell.index + 1}: does not parse as Python ({error.msg}); "
                                    "left as it was", False))
            kept_aside.append(cell.text)
            continue
        cells.append(cell)
    if not any(pipeline.PADDLE_MARK in c.masked for c in cells):
        return NotebookOutcome(data, findings, [])

    parts: List[str] = []
    line = 1
    for cell in cells:
        parts.append(_CELL_MARKER.format(cell.index))
        cell.start_line = line + 1
        body = cell.masked
        if not body.endswith(("\n", "\r")):
            body += "\n"
            cell.added_newline = True
        parts.append(body)
        line += 1 + _line_count(body)
    # Code we leave as it is may use an import the upgrade would otherwise drop as unused (e.g.
    # `fluid.layers.relu?`): a last statement naming those imports keeps them. It is cut off again.
    imported = _import_names("".join(parts))
    keep = sorted(imported & set(_IDENT.findall("\n".join(kept_aside))))
    legacy = _import_names("".join(parts), paddle_only=True)
    for cell in cells:
        for number, magic in sorted(cell.magics.items()):
            if legacy & set(_IDENT.findall(magic)):
                findings.append(Finding("", _magic_line(cell, number), 1, F.SKIPPED, "warning",
                                        f"cell {cell.index + 1}: IPython line left as it was, upgrade it "
                                        f"by hand: {magic}", False))
    keeper_line = line
    if keep:
        parts.append(_KEEPER.format(", ".join(keep)))
    combined = "".join(parts)

    outcome = pipeline.upgrade_text(combined, names, shim)
    where = _locator(cells)
    findings.extend(_relocate(f, where) for f in outcome.findings if f.line < keeper_line)
    sites = [_relocate_site(s, where) for s in outcome.sites if s.line < keeper_line]
    if outcome.text == combined:
        return NotebookOutcome(data, findings, sites, outcome.fast_failure)

    code = outcome.text
    if keep:
        cut = code.rfind(_KEEPER.format(", ".join(keep)).rstrip("\n"))  # a TODO comment may follow it
        still = _import_names(code)
        if cut < 0 or not set(keep) <= still:
            raise FileFailure("upgrading would drop imports still used by magics or unparsed cells "
                              f"({', '.join(sorted(set(keep) - still)) or 'kept names'}); left untouched")
        code = code[:cut]
    new_texts = _split(code, cells)
    layout = _layout(text, nb)
    if layout is None:
        raise FileFailure("the notebook's JSON layout cannot be reproduced exactly; left untouched")
    for cell in cells:
        new = new_texts[cell.index]
        if new != cell.text:
            nb["cells"][cell.index]["source"] = (new.splitlines(keepends=True)
                                                  if isinstance(cell.original, list) else new)
    tail = layout.pop("tail")
    out = json.dumps(nb, **layout) + tail
    return NotebookOutcome((BOM if bom else b"") + out.encode("utf-8"), findings, sites, outcome.fast_failure)


def _split(code: str, cells: List[_Cell]) -> Dict[int, str]:
    """Cut the upgraded module back into cells at the markers."""
    marks = list(_CELL_SPLIT.finditer(code))
    if [int(m.group(1)) for m in marks] != [c.index for c in cells]:
        raise FileFailure("the upgrade moved notebook cell boundaries; left untouched, please report this")
    out: Dict[int, str] = {}
    preamble = code[: marks[0].start()]
    for i, (cell, mark) in enumerate(zip(cells, marks)):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(code)
        segment = code[mark.end():end]
        if i == 0:
            segment = preamble + segment  # e.g. an `import paddle` added at the top of the module
        segment = _unmask(segment, cell.magics)
        if cell.added_newline and segment.endswith("\n"):
            segment = segment[:-1]
        out[cell.index] = segment
    return out


def _locator(cells: List[_Cell]):
    starts = [(c.start_line, c.index) for c in cells]

    def where(line: int) -> Tuple[int, int]:
        cell_index, start = starts[0][1], starts[0][0]
        for s, idx in starts:
            if s <= line:
                cell_index, start = idx, s
        return cell_index + 1, max(1, line - start + 1)

    return where


def _relocate(finding: Finding, where) -> Finding:
    cell, line = where(finding.line)
    return replace(finding, line=line, message=f"cell {cell}: {finding.message}")


def _relocate_site(site: SiteInfo, where) -> SiteInfo:
    cell, line = where(site.line)
    return replace(site, line=line, cell=cell)

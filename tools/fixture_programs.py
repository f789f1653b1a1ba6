"""What a runnable fixture program is, and where its golden output lives.

A program is either one `.py` file, or a directory holding `main.py` (the script that is run) beside
the modules it imports: a model split over several modules. Its name is the file's stem or the
directory's name; its golden output is `<parent>/golden/<name>.json` in both cases, recorded with
the SHA-256 of its source (`source_hash`).
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Iterable, List

GOLDEN_DIR = "golden"
ENTRY = "main.py"


def is_program_dir(path: Path) -> bool:
    return path.is_dir() and (path / ENTRY).is_file()


def find_programs(folder: Path) -> List[Path]:
    """The programs of a folder: its `.py` files and its directories that hold a `main.py`, by name."""
    found = list(folder.glob("*.py")) + [d for d in folder.iterdir() if is_program_dir(d)]
    return sorted(found, key=program_name)


def programs(paths: Iterable[str]) -> List[Path]:
    """Programs named on a command line: program files, program directories, or folders of programs."""
    found: List[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.name == ENTRY and is_program_dir(path.parent):
            found.append(path.parent)
        elif path.is_dir() and not is_program_dir(path):
            found.extend(find_programs(path))
        else:
            found.append(path)
    return found


def program_name(program: Path) -> str:
    return program.name if program.is_dir() else program.stem


def entry_script(program: Path) -> Path:
    """The script that runs the program."""
    return program / ENTRY if program.is_dir() else program


def source_files(program: Path) -> List[Path]:
    """The program's `.py` files: the file itself, or every one of the directory, sorted."""
    if not program.is_dir():
        return [program]
    return sorted(p for p in program.rglob("*.py") if "__pycache__" not in p.parts)


def source_hash(program: Path) -> str:
    """SHA-256 of the program's text: a file's bytes; for a directory, each file's relative path and bytes."""
    if not program.is_dir():
        return hashlib.sha256(program.read_bytes()).hexdigest()
    digest = hashlib.sha256()
    for path in source_files(program):
        digest.update(path.relative_to(program).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def golden_path(program: Path) -> Path:
    return program.parent / GOLDEN_DIR / f"{program_name(program)}.json"

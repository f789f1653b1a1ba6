"""`tools/fixture_programs.py`: which files and directories are runnable programs, and what their golden hash covers."""
from __future__ import annotations

import hashlib

from file_trees import write_tree
from tools import fixture_programs as fp


def test_a_folder_holds_file_programs_and_directory_programs(tmp_path):
    folder = write_tree(tmp_path, {"b_single.py": "", "a_split/main.py": "import model\n", "a_split/model.py": "",
                                   "golden/b_single.json": "{}", "notes/readme.txt": ""})
    found = fp.find_programs(folder)
    assert found == [folder / "a_split", folder / "b_single.py"]  # by name; `notes/` has no main.py
    assert [fp.program_name(p) for p in found] == ["a_split", "b_single"]
    assert fp.entry_script(found[0]) == folder / "a_split/main.py"
    assert fp.entry_script(found[1]) == folder / "b_single.py"
    assert fp.source_files(found[0]) == [folder / "a_split/main.py", folder / "a_split/model.py"]
    assert fp.golden_path(found[0]) == folder / "golden/a_split.json"


def test_command_line_names_a_program_by_file_directory_main_or_folder(tmp_path):
    folder = write_tree(tmp_path, {"one.py": "", "split/main.py": "", "split/model.py": ""})
    assert fp.programs([str(folder / "split/main.py")]) == [folder / "split"]
    assert fp.programs([str(folder / "split")]) == [folder / "split"]
    assert fp.programs([str(folder / "one.py")]) == [folder / "one.py"]
    assert fp.programs([str(folder)]) == [folder / "one.py", folder / "split"]


def test_a_directory_programs_hash_covers_every_module_and_its_name(tmp_path):
    folder = write_tree(tmp_path, {"split/main.py": "import model\n", "split/model.py": "W = 1\n"})
    program = folder / "split"
    before = fp.source_hash(program)
    (program / "model.py").write_text("W = 2\n")
    assert fp.source_hash(program) != before
    (program / "model.py").write_text("W = 1\n")
    assert fp.source_hash(program) == before
    (program / "model.py").rename(program / "other.py")
    assert fp.source_hash(program) != before


def test_a_file_programs_hash_is_the_sha256_of_its_bytes(tmp_path):
    program = write_tree(tmp_path, {"one.py": "print('x: 1')\n"}) / "one.py"
    assert fp.source_hash(program) == hashlib.sha256(program.read_bytes()).hexdigest()

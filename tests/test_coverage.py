"""The table's coverage targets hold on the committed corpus counts and the public correspondence."""
from __future__ import annotations

import json
from collections import Counter

from api_mapping import load_table
from tools.coverage import (DEFAULT_CSV, DEFAULT_USAGE, SITE_SHARE_TARGET, TargetChecker, check_rows,
                                  check_usage, exported_by_1_8_5, read_csv)


def test_every_public_correspondence_row_is_mapped_or_explained():
    report = check_rows(load_table(), read_csv(DEFAULT_CSV), TargetChecker())
    assert report.rows == 362
    assert not report.missing and not report.invalid, (report.missing, report.invalid)


def test_corpus_use_sites_are_covered():
    with DEFAULT_USAGE.open(encoding="utf-8") as fh:
        report = check_usage(load_table(), json.load(fh))
    assert report.sites > 10_000
    assert report.share >= SITE_SHARE_TARGET
    assert report.uncovered_with(2, apis_only=True) == []


def test_names_1_8_5_never_exported_are_told_apart():
    assert exported_by_1_8_5("paddle.fluid.layers.index_sample")
    assert exported_by_1_8_5("paddle.fluid.io.DataLoader.from_generator")  # a method of a 1.8.5 class
    assert not exported_by_1_8_5("paddle.fluid.contrib.layers.index_sample")  # a module, not this member


def test_an_uncovered_1_8_5_api_with_two_sites_misses_the_target():
    from api_mapping.loader import build_table

    table = build_table([("t", {"paddle.fluid.layers.fc": {"update_to": "paddle.static.nn.fc"}})])
    usage = {"files": 1, "names": {"paddle.fluid.layers.fc": 5, "paddle.fluid.layers.relu": 2,
                                   "paddle.fluid.layers.not_an_api_xyz": 2}}
    report = check_usage(table, usage)
    assert report.uncovered == Counter({"paddle.fluid.layers.relu": 2, "paddle.fluid.layers.not_an_api_xyz": 2})
    assert report.uncovered_with(2, apis_only=True) == [("paddle.fluid.layers.relu", 2)]
    assert report.share == 5 / 9

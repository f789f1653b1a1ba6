"""refactors/branch_facts.py: what a path knows from the `if` tests it took, and the statements that run after
a statement on the paths that ran it (what loader_across reads a caller by)."""
from __future__ import annotations

import ast
import textwrap

import pytest

from refactors import branch_facts


def _test(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


def _knowing(*taken: str) -> branch_facts.Facts:
    """The facts of the branches `taken` ("not x" for the `else` of `if x:`)."""
    facts = branch_facts.NONE
    for test in taken:
        negated = test.startswith("else ")
        facts |= branch_facts.learned(_test(test[5:] if negated else test), not negated, lambda t: True)
    return facts


@pytest.mark.parametrize("taken, test, value", [
    pytest.param(["args.do_train"], "args.do_train", True, id="same-test"),
    pytest.param(["args.do_train"], "(args.do_train)", True, id="parenthesized"),
    pytest.param(["args.do_train"], "not args.do_train", False, id="negated"),
    pytest.param(["else args.do_train"], "args.do_train", False, id="else-branch"),
    pytest.param(["args.a and args.b"], "args.b", True, id="a-conjunct"),
    pytest.param(["else args.a or args.b"], "args.a", False, id="a-disjunct-of-the-else"),
    pytest.param(["args.a", "args.b"], "args.a and args.b", True, id="conjunction-of-known"),
    pytest.param(["else args.a"], "args.a and args.b", False, id="conjunction-with-a-false-part"),
    pytest.param(["args.mode == 'train'"], "args.mode == 'train'", True, id="comparison"),
])
def test_a_test_the_path_took_decides_an_equal_one(taken, test, value) -> None:
    assert branch_facts.decided(_test(test), _knowing(*taken)) is value


@pytest.mark.parametrize("taken, test", [
    pytest.param(["args.do_train"], "args.do_eval", id="another-attribute"),
    pytest.param(["args.a or args.b"], "args.a", id="a-disjunct"),
    pytest.param(["args.ready()"], "args.ready()", id="a-call"),
    pytest.param(["args.mode == 'train'"], "args.mode == 'test'", id="another-comparison"),
    pytest.param(["x[0]"], "x[0]", id="an-item"),
    pytest.param(["(y := x)"], "(y := x)", id="a-walrus"),
])
def test_other_tests_are_not_decided(taken, test) -> None:
    assert branch_facts.decided(_test(test), _knowing(*taken)) is None


def _after(code: str, marker: str = "marker") -> list:
    module = ast.parse(textwrap.dedent(code))
    scope = module.body[0] if isinstance(module.body[0], ast.FunctionDef) else module
    stmt = next(n for n in ast.walk(scope) if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", None) == marker)
    stable = branch_facts.stable_cpython(module, scope)
    return [ast.unparse(s).splitlines()[0] for s in branch_facts.path_after(scope, stmt, stable)]


@pytest.mark.parametrize("code, expected", [
    pytest.param("""
        def f(args):
            if args.train:
                with guard():
                    marker = 1
                    a = 1
            b = 2
            if args.train:
                c = 3
            else:
                d = 4
            if not args.train:
                e = 5
            g = 6
        """, ["a = 1", "b = 2", "c = 3", "g = 6"], id="equal-tests-followed"),
    pytest.param("""
        def f(args):
            if args.train:
                marker = 1
            elif args.eval:
                a = 1
            if args.eval:
                b = 2
            if args.train:
                c = 3
        """, ["if args.eval:", "c = 3"], id="elif-chain"),
    pytest.param("""
        def f(args, other):
            if args.train:
                marker = 1
            args = other
            if args.train:
                c = 3
        """, ["args = other", "if args.train:"], id="name-rebound"),
    pytest.param("""
        def f(args):
            if args.train:
                marker = 1
            args.update()
            if args.train:
                c = 3
        """, ["args.update()", "if args.train:"], id="method-called"),
    pytest.param("""
        def f(args):
            if args.train:
                args.train = False
                marker = 1
            if args.train:
                c = 3
        """, ["if args.train:"], id="changed-before-in-the-branch"),
    pytest.param("""
        def f(args):
            if args.train:
                marker = 1
            if args.train:
                c = 3

        def g(args):
            args.train = False
        """, ["if args.train:"], id="attribute-assigned-elsewhere"),
    pytest.param("""
        def f(args):
            for x in range(2):
                if args.train:
                    marker = 1
                if args.train:
                    c = 3
            d = 4
        """, ["c = 3"], id="stops-at-a-loop"),
])
def test_the_statements_after_on_the_paths_that_ran_it(code: str, expected: list) -> None:
    assert _after(code) == expected

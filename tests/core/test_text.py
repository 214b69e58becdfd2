"""core.text: messages quote files safely, and nesting is measured before a parser recurses."""

from __future__ import annotations

import pytest

from core.text import MAX_NESTING, nests_deeper_than


@pytest.mark.parametrize("syntax", ["json", "toml"])
def test_nesting_is_counted_up_to_the_limit_and_one_past_it(syntax):
    at_limit = "[" * MAX_NESTING + "]" * MAX_NESTING
    past = "[" * (MAX_NESTING + 1) + "]" * (MAX_NESTING + 1)
    assert not nests_deeper_than(at_limit, syntax=syntax)
    assert nests_deeper_than(past, syntax=syntax)
    assert nests_deeper_than("{" * 100_000, syntax=syntax)  # stops at the first level past


def test_brackets_in_strings_and_comments_do_not_count():
    deep = "[" * 10
    assert not nests_deeper_than(f'{{"a": "{deep}", "b": "\\"{deep}"}}', 2, "json")
    toml = (f'a = "{deep}"\nb = \'{deep}\'\nc = """\n{deep}\n"""\nd = \'\'\'{deep}\'\'\'\n'
            f"# {deep}\ne = [[1], [2]]\n")
    assert not nests_deeper_than(toml, 2, "toml")
    assert nests_deeper_than(toml + "f = [[[1]]]\n", 2, "toml")


"""Values as reprs and errors show them: bounded, and as their own repr where that is already short."""

from __future__ import annotations

import sys

import attrs

from agentscope_py import URLSource
from agentscope_py._shown import shown


@attrs.define(repr=False)
class Key:
    """A user's own attrs class, whose repr keeps its secret."""

    secret: str

    def __repr__(self) -> str:
        return "Key(***)"


def test_a_tuple_is_shown_as_its_repr_when_short() -> None:
    assert shown(()) == "()"
    assert shown((1,)) == "(1,)"
    assert shown((1, "a")) == "(1, 'a')"


def test_a_long_tuple_shows_its_first_items_and_its_length() -> None:
    assert shown(tuple(range(30))) == "(" + ", ".join(map(str, range(20))) + ", …(30 items))"
    assert shown(list(range(30))) == "[" + ", ".join(map(str, range(20))) + ", …(30 items)]"
    assert len(shown(tuple(range(1000)))) < 100


def test_a_deeply_nested_tuple_is_shown_to_a_bounded_depth() -> None:
    nested: tuple[object, ...] = ()
    for _ in range(5000):
        nested = (nested,)
    assert len(shown(nested)) < 200


def test_a_users_attrs_class_is_shown_by_its_own_repr() -> None:
    # Only the library's classes are shown field by field: a user's repr may hide what a field holds.
    assert shown(Key("hunter2")) == "Key(***)"
    assert "hunter2" not in shown([Key("hunter2")])


def test_a_tuple_subclass_is_shown_by_its_own_repr() -> None:
    assert shown(sys.version_info) == repr(sys.version_info)


def test_a_field_with_its_own_repr_is_shown_by_it() -> None:
    url = "https://example.com/" + "a" * 100
    assert len(url) == 120
    source = URLSource(url)
    assert shown(source) == repr(source) == f"URLSource(url={url!r}, mime_type=None)"


def test_a_bad_value_whose_parts_are_shared_is_described_to_three_levels() -> None:
    # 20 keys each holding the one dict below, ten levels down: 20**10 paths, which shown() to its
    # twenty levels walked one by one (seconds from five levels on) for an error's sixty characters.
    from agentscope_py._checks import describe

    shared: dict[str, object] = {}
    for _ in range(10):
        shared = {f"k{index}": shared for index in range(20)}
    assert describe(shared) == "{'k0': {'k0': {'k0': {…(20 items)}, 'k1': {…(20 items)}, ... (dict)"
    assert shown([[[1]]], levels=2) == "[[[…(1 item)]]]" and shown([[[1]]]) == "[[[1]]]"

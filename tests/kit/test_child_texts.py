"""The child's shortcuts in encoding answers and decoding the grader's text (issue 43):
each gives what the long way gives, byte for byte and value for value."""

import enum

import pytest

from autograder.sandbox import layers, protocol
from autograder.sandbox.client import Sandbox


def _nested(levels):
    value = [1]
    for _ in range(levels - 1):
        value = [value]
    return value


def list_tree_text(value):
    """The text the child sends for `value` by answer_form (None: to_plain's way)."""
    plain, text = protocol.answer_form(value)
    if plain is protocol.NOT_A_TREE:
        return None
    return protocol.json_text(plain) if text is None else text


class Colour(enum.IntEnum):
    RED = 1


STATE = [[0, 1, 2] * 8, [9, 0], True]


@pytest.mark.parametrize("value", [
    [], [1, "x", None, True], [[None, "X"], ["O", None]], STATE, [STATE, STATE, [[], []]],
    [["\u00fc\n\"\\", 10 ** 40, -3, False], [[[[]]]]], _nested(protocol.TREE_LEVELS),
])
def test_a_tree_of_lists_is_the_text_to_plain_and_dumps_make(value):
    assert list_tree_text(value) == protocol.dumps(protocol.to_plain(value))[:-1]


@pytest.mark.parametrize("value", [
    [[1, 2], (3, 4)], [1.5], [[float("inf")]], [{"a": 1}], [[Colour.RED]], [{1, 2}],
    type("Row", (list,), {})([1]), (1, 2), "text", 3, _nested(protocol.TREE_LEVELS + 1),
])
def test_anything_else_is_left_to_to_plain(value):
    assert list_tree_text(value) is None


@pytest.mark.parametrize("value", [
    0.25, [STATE, STATE], (1, (2, 3)), {(1, 2), (3, 4)}, frozenset({"a"}), {1: "a", "b": 2},
    {"__tuple__": 1}, {"plain": [1, "__x"]}, "__tuple__", float("inf"), [(1, 2), [3]],
])
def test_the_graders_text_decodes_alike_with_or_without_the_hook(value):
    line = protocol.dumps({"r": protocol.to_plain(value)})
    for text in (line, line.encode()):
        for requests in (False, True):
            got, want = protocol.from_grader(text, requests), protocol.loads(text, requests)
            assert repr(got) == repr(want) and type(got["r"]) is type(want["r"])


def test_the_encoder_spells_every_tag_as_it_is():
    # from_grader skips the hook for a text with no '"__' in it: the grader's encoder
    # must write a tag's underscores unescaped (a child's text goes to loads, always).
    line = protocol.dumps(protocol.to_plain([(1,), {2}, {(3, 4)}, {5: 6}, float("nan")]))
    assert line.count('"__') == 5


def test_unknown_tags_and_request_tags_with_other_contents_stay_dicts():
    assert protocol.loads('{"__slot__": 2}') == {"__slot__": 2}      # not in a reply
    assert type(protocol.loads('{"__slot__": 2}', requests=True)) is protocol.Slot
    for text in ('{"__slot__": "2"}', '{"__proxy__": [1]}', '{"__nothing__": 1}',
                 '{"__tuple__": [1], "more": 2}'):
        assert type(protocol.loads(text, requests=True)) is dict


def test_an_answer_of_lists_is_what_it_was_when_the_run_returned(tmp_path):
    """A map's answer made of lists travels as its text made at once (child.Encoded):
    the student's code changing it afterwards (in `again`'s second run, or the next
    run) reaches neither answer, and answers of other kinds in the same chunk keep
    their order and types."""
    (tmp_path / "m.py").write_text(
        "kept = [[0, 0, 0], [9, 9], False]\n"
        "def step(n):\n"
        "    kept[0][n % 3] += 1\n"
        "    kept[2] = not kept[2]\n"
        "    if n % 4 == 1:\n        return (n, [n])\n"
        "    if n % 4 == 2:\n        return n\n"
        "    return [kept, [kept[1]], []]\n")
    expected, kept = [], [[0, 0, 0], [9, 9], False]

    def step(n):
        kept[0][n % 3] += 1
        kept[2] = not kept[2]
        if n % 4 == 1:
            return (n, [n])
        if n % 4 == 2:
            return n
        return [[list(kept[0]), list(kept[1]), kept[2]], [list(kept[1])], []]
    for n in range(700):
        expected.append((step(n), step(n)))
    with Sandbox(tmp_path, ["m"], list(layers.available())) as sandbox:
        assert sandbox.import_modules(5).ok
        got = sandbox.map("m.step", [(n,) for n in range(700)], 5, again=True)
    assert [(o.value, o.again.value) for o in got] == expected
    assert [type(o.value) for o in got[:4]] == [list, tuple, int, list]


def test_flat_lists_and_boards_are_copied_deeper_trees_encoded_at_once():
    board = [[1, None], ["X", 2]]
    plain, text = protocol.answer_form(board)
    assert text is None and plain == board and plain is not board and plain[0] is not board[0]
    assert protocol.answer_form([1, 2]) == ([1, 2], None)
    assert protocol.answer_form([STATE]) == (None, protocol.dumps([STATE])[:-1])
    assert protocol.answer_form([(1, 2)]) == (protocol.NOT_A_TREE, None)
    assert protocol.answer_form((1, 2)) == (protocol.NOT_A_TREE, None)

"""The honest rewrites' transformers (autograder/mutate/honest/rewrites/): each kind,
on a small module, changes the code as its description says, only inside the
student's code, and the result behaves like the original; the scoping rules the
renaming rewrites share; the probe that tells a rewrite bug from a suite's."""

import math

import pytest

from autograder import KitError, assignment
from autograder.mutate.honest import behaviour
from autograder.mutate.honest.run import check
from autograder.mutate.honest.rewrites import REWRITES, apply
from autograder.mutate.honest.source import Reference, rename_in


def region(body: str) -> str:
    """`body` (indented for a function) between solution markers."""
    return f"    ### BEGIN SOLUTION\n{body}    ### END SOLUTION\n"


def run(text: str, calls: list[str]) -> list:
    """Each call's result (or the names of its exception's classes) in a fresh module."""
    space: dict = {"__name__": "m"}
    exec(compile(text, "m.py", "exec"), space)
    results = []
    for call in calls:
        try:
            results.append(("returned", eval(call, space)))
        except Exception as error:            # noqa: BLE001 - compared below
            results.append(("raised", [c.__name__ for c in type(error).__mro__], str(error)))
    return results


def alike(before: list, after: list) -> bool:
    """Results equal, a list and a tuple alike, an exception of a subclass alike."""
    def norm(value):
        if isinstance(value, (list, tuple)):
            return [norm(v) for v in value]
        return value
    for a, b in zip(before, after):
        if a[0] == "raised":
            if b[0] != "raised" or a[1][0] not in b[1] or a[2] != b[2]:
                return False
        elif norm(a) != norm(b):
            return False
    return len(before) == len(after)


# Every kind: a module, what must appear in the rewrite, what must not, and calls
# whose results must not change.
CASES = {
    "unparsed": (
        "def f(x):\n    '''doc'''\n" + region("    return x + 1  # one more\n"),
        ["return x + 1"], ["# one more", "BEGIN SOLUTION"], ["f(1)"]),
    "keyword_calls": (
        "def area(width, height):\n    '''The area.'''\n" + region("    return width * height\n")
        + "\n\nclass Box:\n    def put(self, cell):\n        self.cell = cell\n"
        "        return self\n"
        + "\n\ndef memo(f):\n    def inner(*args):\n        return f(*args)\n    return inner\n"
        + "\n\n@memo\ndef g(a):\n    return a\n"
        + "\n\ndef double(w, h):\n    '''Twice the area.'''\n"
        + region("    return 2 * area(w, h) + g(1) + Box().put(3).cell\n")
        + "\n\ndef given(w, h):\n    return area(w, h)\n",
        ["2 * area(width=w, height=h)", "g(1)", "Box().put(cell=3)", "return area(w, h)"],
        [], ["double(2, 3)"]),
    "keyword_callbacks": (
        "def score(state):\n    return -state\n\n\n"
        "def best(states, score=None, order=sorted):\n    '''The best.'''\n"
        + region("    return max(score(s) for s in order(states))\n")
        + "\n\ndef sorted_first(states):\n    return sorted(states)\n",
        ["score(state=s)"], [], ["best([3, 1, 2], lambda state: state * 2)"]),
    "exception_subclasses": (
        "def root(n):\n    '''Return the square root. Raises ValueError if n < 0.'''\n"
        + region("    if n < 0:\n        raise ValueError(f'{n} < 0')\n"
                 "    if not isinstance(n, int):\n        raise TypeError('int')\n"
                 "    return n ** 0.5\n"),
        ["class RootValueError(ValueError):", "raise RootValueError(", "raise TypeError("], [],
        ["root(4)", "root(-1)"]),
    "tuple_returns": (
        "def evens(n):\n    '''Return the even numbers below n.'''\n"
        + region("    return [i for i in range(n) if i % 2 == 0]\n")
        + "\n\ndef odds(n):\n    '''Return the list of odd numbers below n.'''\n"
        + region("    return [i for i in range(n) if i % 2]\n"),
        ["return tuple([i for i in range(n) if i % 2 == 0])",
         "return [i for i in range(n) if i % 2]"], [], ["evens(7)", "odds(7)"]),
    "set_builders": (
        "def residues(xs):\n    '''The residues.'''\n" + region("    return {x % 3 for x in xs}\n"),
        ["set((x % 3 for x in xs))"], [], ["residues([1, 2, 3, 4])"]),
    "generators": (
        "def squares(xs):\n    '''Sum of squares.'''\n"
        + region("    return sum([x * x for x in xs])\n"),
        ["sum((x * x for x in xs))"], ["[x * x"], ["squares([1, 2, 3])"]),
    "eager_lists": (
        "def biggest(xs, f):\n    '''The biggest.'''\n"
        + region("    if any(f(x) for x in xs):\n        return max(x for x in xs)\n"
                 "    return None\n"),
        ["max([x for x in xs])", "any((f(x) for x in xs))"], [],
        ["biggest([1, 5, 2], lambda x: x > 4)", "biggest([1], lambda x: False)"]),
    "lru_cache": (
        "def table(n):\n    '''A table.'''\n"
        + region("    return [_square(i) for i in range(n)] + [_total([1, 2])]\n")
        + region("").replace("    ### END", "def _square(k):\n    return k * k\n\n\n"
                                             "def _total(cells):\n    return sum(cells)\n"
                                             "    ### END").replace("    ### BEGIN",
                                                                    "### BEGIN"),
        ["@functools.lru_cache(maxsize=None)\ndef _square(k):", "import functools"],
        ["@functools.lru_cache(maxsize=None)\ndef _total"], ["table(4)"]),
    "debug_prints": (
        "def add(a, b):\n    '''The sum.'''\n" + region("    return a + b\n"),
        ["_debug_ausgabe('add:', a, b)", "print('DEBUG', name, *teile)"], [], ["add(1, 2)"]),
    "german_locals": (
        "def pick(moves):\n    '''The best move.'''\n"
        + region("    best = None\n    for move in moves:\n"
                 "        if best is None or move > best:\n            best = move\n"
                 "    return best\n"),
        ["beste = None", "for zug in moves:", "def pick(moves):"], ["best ="],
        ["pick([3, 9, 2])"]),
    "german_docs": (
        "def count(xs):\n    '''Count the items.'''\n"
        + region("    n = 0\n    for x in xs:\n        n += 1\n    return n\n"),
        ["Berechnet `count`", "# Schleife über alle Möglichkeiten", "# Ergebnis zurückgeben"],
        ["Count the items"], ["count([1, 2])"]),
    "main_block": (
        "def f():\n    '''One.'''\n" + region("    return 1\n")
        + "\n\nif __name__ == '__main__':\n    input('old game')\n",
        ["if __name__ == '__main__':", "print(sorted("], ["old game"], ["f()"]),
    "loops_to_comprehensions": (
        "def doubled(xs):\n    '''Doubled positives.'''\n"
        + region("    out = []\n    for x in xs:\n        if x > 0:\n"
                 "            out.append(x * 2)\n    return out\n"),
        ["out = [x * 2 for x in xs if x > 0]"], ["out.append"], ["doubled([1, -2, 3])"]),
    "comprehensions_to_loops": (
        "def doubled(xs):\n    '''Doubled positives.'''\n"
        + region("    return [x * 2 for x in xs if x > 0]\n"),
        ["for x in xs:", "if x > 0:", ".append(x * 2)"], ["[x * 2 for"],
        ["doubled([1, -2, 3])"]),
    "float_inf": (
        "import math\n\n\ndef lowest(xs, start=math.inf):\n    '''The lowest.'''\n"
        + region("    best = start\n    worst = -math.inf\n    for x in xs:\n"
                 "        best = min(best, x)\n        worst = max(worst, x)\n"
                 "    return best, worst\n"),
        ["start=float('inf')", "worst = float('-inf')"], ["math.inf"], ["lowest([3, 1])"]),
    "early_returns": (
        "def sign(x):\n    '''The sign.'''\n" + region("    return 1 if x > 0 else -1\n"),
        ["if x > 0:\n        return 1\n    return -1"], [], ["sign(2)", "sign(-2)"]),
    "result_variable": (
        "def grade(x):\n    '''A grade.'''\n"
        + region("    if x > 90:\n        return 'A'\n    if x > 50:\n        return 'B'\n"
                 "    return 'C'\n"),
        ["ergebnis = 'A'", "return ergebnis"], ["return 'A'"],
        ["grade(95)", "grade(60)", "grade(1)"]),
    "none_equality": (
        "EMPTY = None\n\n\ndef empty(x, y):\n    '''Empty?'''\n"
        + region("    return x is None and y is not EMPTY\n"),
        ["x == None", "y != EMPTY"], [" is "], ["empty(None, 1)", "empty(1, None)"]),
    "rename_private_helpers": (
        "def total(xs):\n    '''The total.'''\n" + region("    return _add(xs)\n")
        + region("").replace("    ### END", "def _add(xs):\n    return sum(xs)\n"
                                             "    ### END").replace("    ### BEGIN", "### BEGIN"),
        ["return _hilfs_add(xs)", "def _hilfs_add(xs):"], [" _add("], ["total([1, 2])"]),
    "rename_private_names": (
        "def lookup(k):\n    '''Look up.'''\n" + region("    return _TABLE[k]\n")
        + region("").replace("    ### END", "_TABLE = {1: 'one'}\n    ### END")
                    .replace("    ### BEGIN", "### BEGIN"),
        ["_daten_TABLE[k]", "_daten_TABLE = {1: 'one'}"], [], ["lookup(1)"]),
    "wrap_public": (
        "def add(a, b=2):\n    '''The sum.'''\n" + region("    return a + b\n"),
        ["@functools.wraps(funktion)", "@_durchgereicht\ndef add(a, b=2):"], [],
        ["add(1)", "add(a=1, b=5)", "__import__('inspect').signature(add).parameters['b']"
                                    ".default"]),
    "reorder_definitions": (
        "def first():\n    '''One.'''\n" + region("    return 1\n")
        + "\n\ndef second(f=first):\n    '''Needs first when defined.'''\n"
        + region("    return f() + 1\n")
        + "\n\ndef third():\n    '''Three.'''\n" + region("    return second() + 1\n"),
        [], [], ["third()"]),
    "augmented_assignments": (
        "def count(xs):\n    '''Count.'''\n"
        + region("    n = 0\n    for x in xs:\n        n += 1\n    return n\n"),
        ["n = n + 1"], ["+="], ["count('abc')"]),
    "single_assignments": (
        "def pair(x):\n    '''Pair.'''\n"
        + region("    a, b = x, 2 * x\n    c, d = b, a\n    a, b = b, a\n    return a, b, c, d\n"),
        ["a = x\n    b = 2 * x", "c = b\n    d = a", "a, b = (b, a)"], [], ["pair(3)"]),
    "dict_lookups": (
        "def find(table, key):\n    '''Find.'''\n"
        + region("    return table.get(key), table.get(key, -1)\n"),
        ["table[key] if key in table else None", "table[key] if key in table else -1"],
        [".get("], ["find({1: 2}, 1)", "find({}, 3)"]),
}


def test_every_rewrite_kind_has_a_case():
    assert set(CASES) == set(REWRITES)
    assert len(REWRITES) >= 12


@pytest.mark.parametrize("kind", sorted(CASES))
def test_each_rewrite_changes_the_code_as_described_and_keeps_its_behaviour(kind):
    text, present, absent, calls = CASES[kind]
    made = apply(Reference("m.py", text), kind)
    assert made.sites > 0, made.notes
    for snippet in present:
        assert snippet in made.source, f"{snippet!r} not in\n{made.source}"
    for snippet in absent:
        assert snippet not in made.source, f"{snippet!r} still in\n{made.source}"
    assert alike(run(text, calls), run(made.source, calls)), made.source
    compile(made.source, "m.py", "exec")


def test_reordering_keeps_a_definition_after_what_its_default_needs():
    text = CASES["reorder_definitions"][0]
    source = apply(Reference("m.py", text), "reorder_definitions").source
    names = [line.split("(")[0][4:] for line in source.splitlines() if line.startswith("def ")]
    assert names == ["third", "first", "second"]


def test_scaffolding_outside_the_regions_is_left_alone():
    text = "def given(x):\n    return given_helper(x)\n\n\ndef given_helper(y):\n" \
           "    return y is None\n"
    for kind in REWRITES:
        made = apply(Reference("m.py", text), kind)
        if kind in ("unparsed", "main_block", "reorder_definitions"):
            continue              # these change the module as a whole
        assert made.sites == 0 and made.source == apply(
            Reference("m.py", text), "unparsed").source, kind


def test_a_cache_is_refused_for_a_list_argument_or_a_changing_global():
    text = "CACHE = {}\n\n\ndef f(board):\n    '''F.'''\n" + region(
        "    return _count(board) + _seen(1)\n") + region("").replace(
        "    ### END", "def _count(board):\n    return len(board)\n\n\n"
                      "def _seen(k):\n    CACHE[k] = 1\n    return len(CACHE)\n    ### END"
    ).replace("    ### BEGIN", "### BEGIN")
    made = apply(Reference("m.py", text), "lru_cache")
    assert made.sites == 0
    notes = " ".join(made.notes)
    assert "_count(board) passes board" in notes and "_seen: not cached: it changes CACHE[k]" \
        in notes


def test_a_tuple_is_refused_where_the_module_defines_the_returned_noun_as_a_list():
    text = '"""A board is a list of three rows."""\n\n\ndef fresh():\n' \
           '    """Return the board of a new game."""\n' + region("    return [[0, 0, 0] for row in range(3)]\n")
    made = apply(Reference("m.py", text), "tuple_returns")
    assert made.sites == 0 and "which the module defines as a container" in made.notes[0]


def test_renaming_respects_nested_scopes():
    import ast
    text = ("def f(best):\n    value = best\n    g = lambda value: value + 1\n"
            "    def h():\n        nonlocal value\n        value += 1\n        return value\n"
            "    items = [value for value in range(3)]\n    return g(value), h(), items, value\n")
    tree = ast.parse(text)
    rename_in(tree.body[0], {"value": "wert"})
    renamed = ast.unparse(tree)
    assert "lambda value: value + 1" in renamed           # the lambda's own parameter
    assert "nonlocal wert" in renamed and "wert += 1" in renamed
    assert "[value for value in range(3)]" in renamed     # the comprehension's own
    space = {}
    exec(renamed, space)
    assert space["f"](5) == (6, 6, [0, 1, 2], 6)


def test_german_names_avoid_every_name_the_module_uses():
    text = "def f(moves):\n    '''F.'''\n" + region(
        "    zug = 1\n    move = 2\n    return zug + move\n")
    source = apply(Reference("m.py", text), "german_locals").source
    assert "zug2 = 2" in source and run(source, ["f(0)"]) == [("returned", 3)]


def test_an_unknown_rewrite_is_one_clear_error():
    with pytest.raises(KitError, match="unknown rewrite 'nope'; the rewrites are: unparsed"):
        check(assignment.load("tictactoe"), ["keyword_calls", "nope"])


# ------------------------------------------------------------ the probe
def write(folder, text):
    folder.mkdir()
    (folder / "m.py").write_text(text)
    return folder


PROBE = "print(m.f(2), m.g())\nprint(raises(m.f, -1))\n"
ORIGINAL = ("import math\n\ndef f(x):\n    if x < 0:\n        raise ValueError('negative')\n"
            "    return [x, math.inf]\n\ndef g():\n    print('noise')\n    return {3, 1}\n")


def test_the_probe_accepts_what_the_specification_allows(tmp_path):
    reference = behaviour.run_probe(write(tmp_path / "a", ORIGINAL), ["m"], PROBE)
    assert reference["error"] is None and len(reference["records"]) == 2
    allowed = ORIGINAL.replace("raise ValueError", "raise Negative") \
        .replace("return [x, math.inf]", "return (x, float('inf'))") \
        .replace("import math", "import math\nclass Negative(ValueError):\n    pass")
    again = behaviour.run_probe(write(tmp_path / "b", allowed), ["m"], PROBE)
    assert behaviour.difference(reference, again) == ""


@pytest.mark.parametrize("change, words", [
    (("return [x, math.inf]", "return [x + 1, math.inf]"), "print number 1 of the probe differs"),
    (("raise ValueError", "raise TypeError"), "print number 2 of the probe differs"),
    (("def g():", "def g(y):"), "the probe failed: TypeError"),
])
def test_the_probe_tells_a_rewrite_bug(tmp_path, change, words):
    reference = behaviour.run_probe(write(tmp_path / "a", ORIGINAL), ["m"], PROBE)
    broken = behaviour.run_probe(write(tmp_path / "b", ORIGINAL.replace(*change)), ["m"], PROBE)
    assert words in behaviour.difference(reference, broken)


def test_a_main_block_that_fails_is_a_rewrite_bug(tmp_path):
    good = write(tmp_path / "a", "print('played')\n")
    bad = write(tmp_path / "b", "raise SystemExit(3)\n")
    assert behaviour.run_main(good, "m") == ""
    assert "exit code 3" in behaviour.run_main(bad, "m")


def test_the_inf_case_really_holds_infinity():
    # float_inf's own case compares -inf and inf results: make sure they are there.
    text = CASES["float_inf"][0]
    assert run(text, ["lowest([])"]) == [("returned", (math.inf, -math.inf))]

"""A search on a game tree, drawn (autograder/outputs/trees.py): the contract, the drawing,
the caps, student text in it, and a hidden check's picture that keeps its answer.

The pictures are built from the kit's own tree fixtures (autograder/checking/gametrees/,
read only): the handout's rule is the fixture module's reference alpha-beta, the
"student" a search that never prunes (as examples/gametree/bob_no_pruning does), or
one that cuts on > instead of >=.
"""

from __future__ import annotations

import json
import math
import re
import xml.etree.ElementTree as ET
from html import unescape

import pytest

from autograder.checking import CheckFailed
from autograder.outputs import trees
from autograder.checking import gametrees
from tests.kit.tree_search import search_tree
from tests.kit.tree_pictures import from_game_tree

SVG = "{http://www.w3.org/2000/svg}"


def calls(result) -> list:
    """A reference search's visits as the grader's game logs them: ("n", node) for
    nextstates, ("e", node) for evaluation."""
    return [("n" if node in result.expanded else "e", node) for node in result.visited]


def windows_and_values(tree) -> tuple[dict, dict]:
    """The (alpha, beta) each node is entered with and the value it gets, under the
    kit's rule (fail-soft, cut on >=): what a check can give the picture."""
    windows, values = {}, {}

    def visit(node, alpha, beta, is_max):
        windows[node] = (alpha, beta)
        kids = tree["children"].get(node, [])
        if not kids:
            values[node] = tree["values"][node]
            return values[node]
        best = -math.inf if is_max else math.inf
        for kid in kids:
            value = visit(kid, alpha, beta, not is_max)
            best = max(best, value) if is_max else min(best, value)
            if (best >= beta) if is_max else (best <= alpha):
                break
            alpha, beta = (max(alpha, best), beta) if is_max else (alpha, min(beta, best))
        values[node] = best
        return best
    visit(tree["root"], -math.inf, math.inf, tree.get("max_to_move", True))
    return windows, values


def no_pruning_picture(name="aima-5-2", student_result=None) -> dict:
    tree = gametrees.load_tree(name)
    rule = search_tree(tree)
    plain = search_tree(tree, alphabeta=False)
    windows, values = windows_and_values(tree)
    return from_game_tree(
        tree, calls(rule), calls(plain), rule_result=rule.value,
        student_result=plain.value if student_result is None else student_result,
        rule_values=values, windows=windows,
        cut=[kid for kids in rule.pruned.values() for kid in kids],
        caption=f"alpha-beta on the tree {name!r}")


def svgs(html: str) -> list[ET.Element]:
    """Each <svg> of a rendered picture, parsed as XML (so it is well formed)."""
    return [ET.fromstring(match) for match in re.findall(r"<svg.*?</svg>", html, re.S)]


def texts(svg: ET.Element) -> list[str]:
    return ["".join(t.itertext()) for t in svg.iter(f"{SVG}text")]


def test_a_fixture_tree_makes_a_picture_that_is_strict_json_and_survives_normalizing():
    picture = no_pruning_picture()
    kept = trees.normalized(picture)
    text = json.dumps(kept, allow_nan=False)         # infinity is written as "inf"
    assert trees.normalized(json.loads(text)) == kept
    assert kept["rule"]["windows"]["A"] == ["-inf", "inf"]
    assert [n["id"] for n in kept["nodes"]][:4] == ["A", "B", "C", "D"]
    assert kept["cut"] == ["c2", "c3"]                # the textbook's two cuts


def test_the_drawing_numbers_the_calls_greys_the_cuts_and_marks_the_first_difference():
    html = unescape(trees.render(no_pruning_picture(), key="t1"))
    rule, student = svgs(trees.render(no_pruning_picture(), key="t1"))
    # every game call has its number: 11 for the rule (c2, c3 cut), 13 without pruning
    assert "The handout's rule: 11 game calls" in html and "Your search: 13 game calls" in html
    badges = lambda svg: [r for r in svg.iter(f"{SVG}rect") if r.get("rx") == "8"]
    assert len(badges(rule)) == 11 and len(badges(student)) == 13
    # the rule never visits c2 and c3: grey; its edges to them are crossed in both drawings
    grey = [r for r in rule.iter(f"{SVG}rect") if r.get("fill") == trees.GREY_FILL]
    assert len(grey) == 2
    assert sum(1 for line in rule.iter(f"{SVG}line") if line.get("stroke-width") == "1.6") == 4
    # the first difference is call 8: the rule expands D, the student evaluates c2
    assert trees.first_difference(*(p["calls"] for p in (no_pruning_picture()["rule"],
                                                          no_pruning_picture()["student"]))) == 7
    rings = lambda svg: [c for c in svg.iter(f"{SVG}circle") if c.get("stroke") == trees.RED]
    assert len(rings(rule)) == 1 and len(rings(student)) == 1
    assert "Red ring: call 8" in html
    # c2 and c3 are visited by the student and not by the rule: amber
    assert len([r for r in student.iter(f"{SVG}rect") if r.get("fill") == trees.AMBER]) == 2
    # values, windows and each search's result at the root
    assert "= 3" in texts(rule) and "α 3, β ∞" in texts(rule)
    assert "result: 3" in texts(rule) and "result: 3" in texts(student)
    # the text alternative: each drawing's title and description
    assert rule.find(f"{SVG}title").text == "The handout's rule"
    assert "A+ B+ b1 b2 b3 C+ c1 D+ d1 d2 d3" in rule.find(f"{SVG}desc").text
    assert student.get("role") == "img" and student.get("aria-labelledby") == \
        "t1-student-t t1-student-d"


def test_a_wrong_result_at_the_root_is_red_and_a_strict_cut_differs_later():
    tree = gametrees.load_tree("deep-cutoff")
    rule = search_tree(tree)
    html = trees.render(from_game_tree(tree, calls(rule), calls(rule)[:-2],
                                             rule_result=12, student_result=13))
    rule_svg, student_svg = svgs(html)
    html = unescape(html)
    results = {svg: [t for t in svg.iter(f"{SVG}text") if "".join(t.itertext()).startswith(
        "result:")][0] for svg in (rule_svg, student_svg)}
    assert results[student_svg].get("fill") == trees.RED
    assert results[rule_svg].get("fill") == trees.INK
    # the student stopped two calls early: the ring is on the rule's next call only
    assert f"call {len(calls(rule)) - 1}," in html


def test_student_text_in_a_picture_is_escaped_shortened_and_made_visible():
    evil = '\u202e<script>alert(1)</script>"onload="x\x1b[31m' + "y" * 200
    tree = {"name": "evil", "root": evil, "children": {evil: ["a"]}, "values": {"a": 1}}
    picture = from_game_tree(tree, [("n", evil), ("e", "a")], [("e", evil)],
                                   rule_result=1, student_result=evil, caption=evil)
    html = trees.render(picture)
    assert "<script" not in html and 'onload="' not in html and "\x1b" not in html
    assert "\u202e" not in html and "\\u202e" in html          # shown, not obeyed
    for svg in svgs(html):                                      # still well-formed XML
        assert svg.tag == f"{SVG}svg"
    kept = trees.normalized(picture)
    assert len(kept["nodes"][0]["label"]) <= trees.MAX_LABEL
    assert len(kept["student"]["result"]) <= trees.MAX_LABEL


def test_a_hidden_check_keeps_only_the_students_search_and_where_it_departs():
    picture = no_pruning_picture()
    hidden = trees.kept(picture, reveal=False)
    assert hidden["rule"]["calls"] == [] and hidden["cut"] == []
    assert not hidden["rule"]["values"] and not hidden["rule"]["windows"]
    assert "result" not in hidden["rule"] and hidden["first_difference"] == 7
    html = unescape(trees.render(hidden))
    assert len(svgs(trees.render(hidden))) == 1 and "handout's rule:" not in html.split("<p")[0]
    (student,) = svgs(trees.render(hidden))
    assert [c for c in student.iter(f"{SVG}circle") if c.get("stroke") == trees.RED]
    assert not [r for r in student.iter(f"{SVG}rect") if r.get("fill") == trees.AMBER]
    assert "Crossed edge" not in html and "Red ring: call 8" in html
    assert trees.kept(picture, reveal=True)["rule"]["calls"]


def test_a_large_tree_is_drawn_in_part_and_says_so_and_an_oversized_one_is_refused():
    tree = gametrees.random_tree("big", 3, depth=5, branching=(3, 3))     # 364 nodes
    rule = search_tree(tree)
    plain = search_tree(tree, alphabeta=False)
    html = trees.render(from_game_tree(tree, calls(rule), calls(plain)))
    for svg in svgs(html):
        drawn = [c for c in svg.iter() if c.tag in (f"{SVG}circle", f"{SVG}rect")
                 and c.get("rx") is None and c.get("stroke") != trees.RED]
        assert len(drawn) == trees.MAX_NODES_DRAWN
        assert f"{364 - trees.MAX_NODES_DRAWN} more nodes not drawn" in texts(svg)
    huge = gametrees.random_tree("huge", 3, depth=7, branching=(3, 3))    # 3,280 nodes
    assert trees.kept(from_game_tree(huge, [], [])) is None
    assert trees.render(from_game_tree(huge, [], [])) == ""
    endless = [("e", "r")] * (trees.MAX_CALLS_KEPT + 1)
    assert trees.kept(from_game_tree(tree, endless, [])) is None


@pytest.mark.parametrize("broken", [
    None, 3, {"kind": "board"}, {"kind": "search-tree", "nodes": []},
    {"kind": "search-tree", "nodes": [{"id": "a", "parent": "b"}, {"id": "b", "parent": "a"}],
     "rule": {"calls": []}, "student": {"calls": []}},
    {"kind": "search-tree", "nodes": [{"id": "a", "parent": None}],
     "rule": {"calls": [["jump", "a"]]}, "student": {"calls": []}},
    {"kind": "search-tree", "nodes": [{"id": "a", "parent": None, "value": float("nan")}],
     "rule": {"calls": []}, "student": {"calls": []}},
    {"kind": "search-tree", "nodes": [{"id": "a", "parent": None}],
     "rule": {"calls": [], "values": {"a": True}}, "student": {"calls": [[["x"], "a"]]}},
])
def test_a_picture_that_breaks_the_contract_costs_its_drawing_only(broken):
    assert trees.kept(broken) is None and trees.render(broken) == ""


def test_a_check_attaches_a_picture_to_its_failure():
    failed = CheckFailed("alpha-beta did not cut", picture=no_pruning_picture())
    assert failed.picture["kind"] == "search-tree"
    assert failed.render(reveal=False) == "alpha-beta did not cut"    # the text is unchanged
    assert CheckFailed("no picture").picture is None


def test_windows_are_written_under_leaves_and_a_students_other_window_is_red():
    """A search that passes windows down to leaves (muehle's value_ab calls) shows them under
    each leaf, in wider slots; where the student passed another window than the rule's it
    is red, so a wrong window shows even when the calls are the same."""
    picture = no_pruning_picture()
    windows = picture["rule"]["windows"]
    picture["student"]["windows"] = {**windows, "b1": ("-inf", 5)}
    rule, student = svgs(trees.render(picture, key="w"))
    rule_windows = {"".join(t.itertext()): t.get("fill") for t in rule.iter(f"{SVG}text")
                    if "".join(t.itertext()).startswith("α")}
    assert "α −∞, β ∞" in rule_windows and set(rule_windows.values()) == {"#555"}
    red = [t for t in student.iter(f"{SVG}text") if t.get("fill") == trees.RED
           and "".join(t.itertext()).startswith("α")]
    assert ["".join(t.itertext()) for t in red] == ["α −∞, β 5"]
    inner_only = no_pruning_picture()
    for search in ("rule", "student"):
        inner_only[search]["windows"] = {k: v for k, v in windows.items() if k in "ABCD"}
    narrow = svgs(trees.render(inner_only, key="n"))[0]
    assert float(rule.get("width")) > float(narrow.get("width"))


def test_a_drawing_shrinks_to_fit_only_so_far_and_prints_whole():
    """A wide tree keeps at least MIN_SCALE of its size (its words stay readable) and
    scrolls in its panel instead; printing drops that floor (outputs/pages.py)."""
    from autograder.outputs import pages
    svg = svgs(trees.render(no_pruning_picture(), key="s"))[0]
    floor = re.search(r"min-width:(\d+)px", svg.get("style"))
    assert floor and int(floor.group(1)) == round(trees.MIN_SCALE * float(svg.get("width")))
    assert "overflow-x: auto" in pages.STYLESHEET.split(".search-tree .tree-panel {")[1] \
        .split("}")[0]
    assert "@media print { .search-tree svg { min-width: 0 !important; } }" in pages.STYLESHEET


def test_a_hidden_search_that_stops_where_the_rule_goes_on_names_the_call_without_a_ring():
    """The student's search ends (or its next call was refused, so not drawn) where the
    rule's goes on: the call they part at is in no drawing a hidden check shows, so the
    legend says where they part instead of promising a ring."""
    tree = gametrees.load_tree("aima-5-2")
    rule = calls(search_tree(tree))
    hidden = trees.kept(from_game_tree(tree, rule, rule[:4]), reveal=False)
    html = unescape(trees.render(hidden))
    (student,) = svgs(trees.render(hidden))
    assert not [c for c in student.iter(f"{SVG}circle") if c.get("stroke") == trees.RED]
    assert "Red ring" not in html
    assert "Your search departs from the handout's rule after call 4." in html
    revealed = unescape(trees.render(from_game_tree(tree, rule, rule[:4])))
    assert "Red ring: call 5" in revealed       # the rule's drawing shows where

"""Pictures for the tests: a tree of autograder/checking/gametrees.py drawn with two logs."""

from autograder.outputs.trees import KIND


def from_game_tree(tree: dict, rule_log, student_log, *, rule_result=None,
                   student_result=None, rule_values=None, student_values=None,
                   windows=None, cut=(), caption=None, labels=None) -> dict:
    """A picture from a tree in the fixture format of autograder/checking/
    gametrees.py ({"root", "children", "values", "max_to_move"}) and two logs of
    game calls as the grader's games record them: ("n", node) for nextstates,
    ("e", node) for evaluation. `windows` are the rule's (alpha, beta) per node;
    `labels` maps node names to what is written on them (default: the names)."""
    children, values = tree["children"], tree.get("values", {})
    nodes, todo = [], [(tree["root"], None)]
    while todo:
        name, parent = todo.pop(0)
        node = {"id": name, "parent": parent, "label": (labels or {}).get(name, name)}
        if name in values:
            node["value"] = values[name]
        nodes.append(node)
        todo.extend((kid, name) for kid in children.get(name, []))
    kinds = {"n": "expand", "e": "evaluate"}

    def search(log, result, given, given_windows):
        made = {"calls": [[kinds[kind], name] for kind, name in log]}
        if result is not None:
            made["result"] = result
        if given:
            made["values"] = dict(given)
        if given_windows:
            made["windows"] = {k: list(v) for k, v in given_windows.items()}
        return made
    picture = {"kind": KIND, "nodes": nodes, "max_to_move": tree.get("max_to_move", True),
               "rule": search(rule_log, rule_result, rule_values, windows),
               "student": search(student_log, student_result, student_values, None),
               "cut": list(cut)}
    if caption:
        picture["caption"] = caption
    return picture

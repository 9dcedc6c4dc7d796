"""What a hidden suite is written with: the suite author's one package.

A hidden check is a pytest function taking the `student` fixture (and `blame`,
`shared` where it needs them); its docstring's first line is what the student
reads. It computes expected values in the trusted process from the reference and
judges the student's outcomes. Everything it needs is here; the engine that
runs it (sandbox, runner, reports) is `autograder.grading`, and knows no game.

    from autograder.checking import Case, check_all, exact, load_reference, map_cases

    ref = load_reference("nim", "nim")

    @functools.cache
    def cases():
        return [Case(f"wins({n})", (n,), None, ref.wins(n)) for n in range(1, 200)]

    def test_wins(student, blame):
        \"\"\"wins names the winner of every position\"\"\"
        blame.on_its_own(student, "wins", "on a position", lambda play: check_all(
            "wins got the winner wrong", *map_cases(student, "nim.wins", cases(), play),
            exact))

The modules, each documented in its own docstring:

=================  ===================================================================
`failures`         `CheckFailed` (the typed verdict) and the words for what a call did
`cases`            `Case`, `Later`, `Show` and `check_all`, the one judging loop
`judges`           what a check accepts: `exact`, `same_items`, `number`, ...
`calls`            `map_cases`, and plans with the grader playing helpers
`chunks`           many cheap calls per item, one Outcome each
`blame`            `Blame` (the fixture): each function judged on its own; `compare`
`verdicts`         what a check keeps and believes
`handout`          what a game of the grader's has handed out, and nothing more
`standins`         the grader's stand-ins take the specification's signatures
`search`           judging searches on games only the grader knows, and `picture`
`gametrees`        game trees as data (`gametrees/*.json`, seeded random ones)
`boards`           `InstrumentedGame`: a make/undo board that records a search's calls
`rng`              `RecordingRandom`: the rng a search is handed
=================  ===================================================================

`load_reference(assignment, module)` loads a reference from solutions/ (the
engine's, grading/reference.py). The plan machinery (`Plan`, `Proxy`,
`Callback`, `Known`, `Handle`) is the sandbox's (sandbox/plans.py), named here
too. docs/SUITES.md says how an assignment is laid out and what a check may believe.
"""

from ..grading.reference import load_reference
from ..sandbox.plans import Callback, Known, Plan, Proxy
from ..sandbox.protocol import Handle
from .blame import Blame, compare, played
from .calls import call_plan, constant, map_cases, play_on_instance, played_plan, pure
from .cases import Case, Later, Show, check_all, now
from .failures import (Answer, CheckFailed, Reason, answer_of, describe, is_a, raises,
                       require, returned, said, short)
from .judges import container_reason, exact, number, same_items, wrong_number
from .verdicts import changed_input, check_probes, kept, refused, slow

__all__ = [
    "Answer", "Blame", "Callback", "Case", "CheckFailed", "Handle", "Known", "Later", "Plan",
    "Proxy", "Reason", "Show", "answer_of", "call_plan", "changed_input", "check_all",
    "check_probes", "compare", "constant", "container_reason", "describe", "exact", "is_a", "kept",
    "load_reference", "map_cases", "now", "number", "play_on_instance", "played",
    "played_plan", "pure", "raises", "refused", "require", "returned", "said", "same_items",
    "short", "slow", "wrong_number"]

"""Hidden suite for negamax: the board's rules, the search's values, its technique.

Nothing of ours runs in the sandbox. Two kinds of checks:

* The student's own `TicTacToe` is checked method by method with plain data
  (call plans without proxies): every one of the 5,478 reachable positions
  for `winner`, `evaluate`, `getMoves`, every open one for `getSide` and
  `makeMove`/`undoMove`. These calls are cheap, so they stay exhaustive.
* The student's `NegaMax` and `ShortSightedOpponent` never see the student's
  board. They get a `Proxy` of a board that lives in this process
  (`InstrumentedGame` around `games.KitBoard` or `instrumented.TreeGame`):
  every `getMoves`/`evaluate`/`getSide` is answered here, every
  `makeMove`/`undoMove` is recorded here, in order. Counts, the visit order,
  the plies of `evaluate`, broken rules and the board after the search are
  read from that object, never from the child. The reference runs in this
  process on an identical board, so expected and observed records come from
  the same code.

Games only the grader knows. Every proxied search runs on a game the
student's code cannot reproduce on its own: tic-tac-toe positions whose board
(a `Twist`) lists the legal moves in an order of its own, offers only some of
them, or scores undecided positions with values of its own; or trees with
opaque move tokens (fixed shapes with fresh tokens and shifted values, and
seeded random trees). A search that uses its own rules or replays a copied
reference on real tic-tac-toe answers for a different game and fails; counts
it keeps itself are never what the work checks judge.

How the positions were chosen, and why that is enough. Each `ask` costs a
pipe round trip (30-50 us), so proxied searches are sampled (seeded, the same
for every submission) and kept small: depths 1 to 3 anywhere in the game,
full depth from positions with 5 or more marks, full depth on subset boards
from 2 to 4 marks (offering half the moves keeps the tree small), and every
depth of 33 trees of 2 to 60 positions. About 1,400 proxied searches in all:
some 21,000 answered and 20,000 recorded calls for a correct submission,
where the old in-sandbox suite made 730,000. That is enough because every
search rule a student can get wrong shows on a large share of them: each
example bug in examples/negamax fails on dozens of cases (tests/negamax
asserts which checks each one fails), and the trees pin cut-offs exactly at
the bound, narrow windows, decided positions above the depth limit and
player 2 at the root. The board's own methods are cheap plain-data calls and
are checked on every position.

Which test catches which mistake:
- values: `test_explore_values`, `test_evaluated_moves`, `test_best_move`;
- plain minimax handed in as alpha-beta, a cut on the wrong comparison, the
  wrong move order: `test_work_on_hand_built_trees`, `test_work_on_positions`;
- the evaluation's sign for the side to move, searching past a decided game:
  `test_explore_leaves`;
- an off-by-one depth limit, or `evaluate` above the limit: `test_depth_limit`;
- fail-soft instead of fail-hard: `test_fail_hard_windows`;
- make/undo discipline: `test_board_is_restored`;
- a fixed choice among equal moves, or a generator of the search's own instead
  of the rng it is given: `test_best_move_random_choice`.

What a check believes: the student's returned answers (values, moves, the
treeNodeCounter as its answer to "count your nodes", the student's own board's
fields) and the grader's own records (the board's counts, visit order, plies and
restoration; what the grader's rng was offered and chose), never anything the
child reports about itself. The grader's board answers only about the positions
it handed out: the root and those reached by the moves its getMoves offered; a
move it did not offer is refused and fails that search's case, named, even when
the search catches the exception (autograder/instrumented.py). Session fixtures
keep verdict data only: answers cut to verdict size and the records the judges
compare (suites/verdicts.py).

Time: every limit is the child's CPU time and every search is depth-limited,
so no verdict depends on the machine's load.
"""

from __future__ import annotations

import functools
import math
import random
from dataclasses import dataclass, field

import pytest

from autograder.gametrees import load_tree, to_nested
from autograder.grading.checks import Case, CheckFailed, check_all, describe, require, short
from autograder.grading.reference import load_reference
from autograder.grading.student import Outcome, Plan, Proxy
from autograder.instrumented import InstrumentedGame, Node, TreeGame, shown, tree_snapshot
from autograder.suites.negamax import games
from autograder.suites.negamax.games import KitBoard, Twist
from autograder.suites.verdicts import kept, refused

ref = load_reference("negamax", "negamax")
INF = math.inf
FULL = 9
ASK = ("getMoves", "evaluate", "getSide")
TELL = ("makeMove", "undoMove")


# ------------------------------------------------------------ positions
def marks(cells):
    return sum(1 for cell in cells if cell)


def rows_of(cells):
    return [list(cells[0:3]), list(cells[3:6]), list(cells[6:9])]


def is_open(cells):
    return bool(games.MOVES[games.key_of(cells)])


def side_of(cells):
    return 2 if marks(cells) % 2 else 1


def draw(cells):
    rows = ["".join(".12"[c] for c in cells[i:i + 3]) for i in (0, 3, 6)]
    if is_open(cells):
        rows.append(f"(player {side_of(cells)} to move; moves are (x, y), column first)")
    else:
        rows.append("(the game is decided)")
    return "\n".join(rows)


@functools.cache
def positions():
    """Every reachable position as a tuple of 9 cells: fewest marks first."""
    seen, todo = {(0,) * 9}, [(0,) * 9]
    while todo:
        cells = todo.pop()
        board = KitBoard(cells)
        for move in board.getMoves():
            board.makeMove(move)
            nxt = tuple(board.cells)
            board.undoMove(move)
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return tuple(sorted(seen, key=lambda c: (marks(c), c)))


@functools.cache
def open_positions():
    return tuple(c for c in positions() if is_open(c))


@functools.cache
def decided_positions():
    return tuple(c for c in positions() if not is_open(c))


@functools.cache
def sample(count, low, high, seed):
    """`count` open positions with low..high marks, seeded, smallest first."""
    pool = [c for c in open_positions() if low <= marks(c) <= high]
    return tuple(sorted(random.Random(seed).sample(pool, min(count, len(pool))),
                        key=lambda c: (marks(c), c)))


# ------------------------------------------------------------ games only the proxy knows
@dataclass(frozen=True, eq=False)
class Game:
    """A position a search starts from, on a board of the grader's: tic-tac-toe
    `cells` (with a `twist`, or plain) or a hand-built `tree` (player `first`
    moves at its root)."""
    name: str
    cells: tuple | None = None
    twist: Twist | None = None
    tree: Node | None = None
    first: int = 1

    def board(self) -> InstrumentedGame:
        """A fresh trusted board for one search."""
        if self.tree is not None:
            return InstrumentedGame(TreeGame(self.tree, first=self.first),
                                    snapshot=tree_snapshot)
        return InstrumentedGame(KitBoard(self.cells, self.twist),
                                snapshot=games.board_snapshot)

    @functools.cached_property
    def text(self) -> str:
        if self.tree is not None:
            return (f"hand-built tree '{self.name}' (player {self.first} moves at the root; "
                    "the moves are the tokens getMoves lists; values from player 1's view)\n"
                    + games.draw_tree(self.tree))
        text = draw(self.cells)
        if self.twist is not None:
            moves = KitBoard(self.cells, self.twist).getMoves()
            text += (f"\n{self.twist.describe()}; here getMoves() returns "
                     f"{short(moves, 120)}" if moves else "")
        return text

    @property
    def size(self):
        """For ordering cases smallest first."""
        if self.tree is not None:
            return (0, games.tree_size(self.tree))
        return (1, 9 - marks(self.cells))


def twist_for(index: int, *, keep=1.0, noise=0) -> Twist:
    return Twist(salt=1000 + index, order=True, keep=keep, noise=noise)


def twisted(cells, index, **kind) -> Game:
    return Game(f"position {index}", cells, twist_for(index, **kind))


FIXED_SHAPES = (
    ("three by three", [[3, 12, 8], [2, 4, 6], [14, 5, 2]], {}, 1),
    ("three by three, player 2 first", [[3, 12, 8], [2, 4, 6], [14, 5, 2]], {}, 2),
    ("uneven, with values at inner nodes", [[[5, 6], [7, 4, 5]], [[3]], [[6], [6, 9]], [7]],
     {(0,): 4, (1,): -2, (2,): 5, (3,): 1, (0, 0): 5, (0, 1): 6, (2, 1): 7}, 1),
    ("two by two by two", [[[-1, 3], [5, 1]], [[-6, -4], [0, 9]]], {(0,): 1, (1,): -3}, 1),
    ("a tie exactly at the bound", [[4, 7], [4, 2], [9, 4, 1], [3, 8]], {}, 1),
    ("four plies", [[[[2, 8], [3, 1]], [[6, 0], [5, 4]]], [[[7, 3], [1, 9]], [[4, 4], [8, 2]]]],
     {(0,): 2, (1,): 1, (0, 0): 3, (0, 1): 5, (1, 0): 4, (1, 1): 6}, 2),
)


RANDOM_TREES = 24


@functools.cache
def trees():
    """Fixed shapes with fresh tokens and shifted values, then seeded random trees."""
    found = []
    shapes = list(FIXED_SHAPES)
    for name in ("aima-5-2", "depth-limit", "ties-deep"):
        nested, static = to_nested(load_tree(name))
        shapes.append((name, nested, static, 1))
    for index, (name, nested, static, first) in enumerate(shapes):
        shift = random.Random(index).randint(-7, 7)
        found.append(Game(f"shape {index + 1}", tree=games.token_tree(nested, static, 50 + index,
                                                                     shift), first=first))
    seed = 300
    while len(found) < len(shapes) + RANDOM_TREES:
        seed += 1
        tree = games.random_tree(seed, depth=3 + seed % 3, widths=(1, 4))
        if games.tree_depth(tree) >= 3 and games.tree_size(tree) <= 60:
            found.append(Game(f"random {len(found) - len(shapes) + 1}", tree=tree,
                              first=1 + seed % 2))
    return tuple(found)


# ------------------------------------------------------------ searches
class Chooser:
    """The `rng` handed to getBestMove and play: a seeded random.Random of the
    grader's, reached through a proxy (the handout asks for rng.choice). It records
    each choice: (what it was offered, what it chose), the first MAX_CHOICES."""
    METHODS = ("choice", "randrange", "randint", "random", "sample")
    MAX_CHOICES = 20

    def __init__(self, seed):
        self._rng = random.Random(seed)
        self.choices = []

    def choice(self, seq):
        chosen = self._rng.choice(seq)
        if len(self.choices) < self.MAX_CHOICES:
            self.choices.append((list(seq) if type(seq) in (list, tuple) else seq, chosen))
        return chosen

    def randrange(self, *args):
        return self._rng.randrange(*args)

    def randint(self, a, b):
        return self._rng.randint(a, b)

    def random(self):
        return self._rng.random()

    def sample(self, population, k):
        return self._rng.sample(population, k)


@dataclass(frozen=True, eq=False)
class Search:
    """One call of the student's searcher on a fresh board of `game`.
    kind: explore (depth, alpha, beta), evaluated (depth), default (depth given to
    the constructor), best (depth, seed), play (depth, seed)."""
    kind: str
    game: Game
    args: tuple

    @property
    def call(self) -> str:
        head = "tree" if self.game.tree is not None else "board"
        if self.kind == "explore":
            depth, alpha, beta = self.args
            return f"NegaMax({head}).explore({depth}, {window(alpha, beta)})"
        if self.kind == "evaluated":
            return f"NegaMax({head}).getEvaluatedMoves({self.args[0]})"
        if self.kind == "default":
            return f"NegaMax({head}, {self.args[0]}).getEvaluatedMoves()"
        if self.kind == "best":
            return f"NegaMax({head}).getBestMove({self.args[0]}, rng)"
        return f"ShortSightedOpponent({head}, {self.args[0]}).play(rng)"

    @property
    def name(self) -> str:
        """What a timeout is remembered by."""
        return {"explore": "NegaMax.explore", "evaluated": "NegaMax.getEvaluatedMoves",
                "default": "NegaMax.getEvaluatedMoves", "best": "NegaMax.getBestMove",
                "play": "ShortSightedOpponent.play"}[self.kind]

    def plan(self, board: InstrumentedGame, chooser: Chooser | None = None) -> Plan:
        """The student's side: the same calls, on a proxy of `board` (and `chooser`
        as rng, for getBestMove and play)."""
        plan = Plan(self.name)
        proxy = Proxy(board, ask=ASK, tell=TELL)
        kind, depth = self.kind, self.args[0]
        if kind == "explore":
            searcher = plan.call("negamax.NegaMax", proxy)
            value = plan.call(searcher.attr("explore"), *self.args)
            return plan.returns({"value": value, "nodes": plan.get(
                searcher.attr("treeNodeCounter"), default=None)})
        if kind == "evaluated":
            searcher = plan.call("negamax.NegaMax", proxy)
            return plan.returns({"moves": plan.call(searcher.attr("getEvaluatedMoves"), depth)})
        if kind == "default":
            searcher = plan.call("negamax.NegaMax", proxy, depth)
            return plan.returns({"moves": plan.call(searcher.attr("getEvaluatedMoves"))})
        rng = Proxy(chooser or Chooser(self.args[1]), ask=Chooser.METHODS)
        if kind == "best":
            searcher = plan.call("negamax.NegaMax", proxy)
            return plan.returns({"move": plan.call(searcher.attr("getBestMove"), depth, rng)})
        player = plan.call("negamax.ShortSightedOpponent", proxy, depth)
        return plan.returns({"move": plan.call(player.attr("play"), rng)})

    def reference(self, board: InstrumentedGame) -> dict:
        """The reference's answer to the same calls, in this process."""
        kind, depth = self.kind, self.args[0]
        if kind == "explore":
            searcher = ref.NegaMax(board)
            value = searcher.explore(*self.args)
            return {"value": value, "nodes": searcher.treeNodeCounter}
        if kind == "evaluated":
            try:
                return {"moves": ref.NegaMax(board).getEvaluatedMoves(depth)}
            except ValueError:
                return {"raised": "ValueError"}
        if kind == "default":
            return {"moves": ref.NegaMax(board, depth).getEvaluatedMoves()}
        if kind == "best":
            return {"move": ref.NegaMax(board).getBestMove(depth, Chooser(self.args[1]))}
        return {"move": ref.ShortSightedOpponent(board, depth).play(Chooser(self.args[1]))}


@dataclass
class Run:
    """A search as the student's code did it, and as the reference does it: the
    verdict data only (the answer cut to verdict size, the grader's records cut to
    what the judges compare), so session fixtures of runs stay small whatever the
    student's code returned or did."""
    search: Search
    outcome: object                 # Outcome of the plan: the student's answer
    record: dict                    # the grader's board after the student's search
    want: dict                      # the reference's answer
    want_record: dict = field(repr=False, default_factory=dict)
    ran: bool = True                # the search answered or raised: its records are whole
    choices: tuple = ()             # (offered, chosen) of each rng.choice, the grader's


@functools.cache
def expected(search: Search) -> tuple[dict, dict]:
    board = search.game.board()
    answer = search.reference(board)
    return answer, board.summary()


#: A right answer of a search plan holds at most this many values (9 evaluated moves).
ANSWER_VALUES = 100


def run(student, searches) -> list[Run]:
    """Every search in one pipelined request, each on its own fresh trusted board.
    A search that made a move the board did not offer fails on that refusal, named,
    also when it caught the exception and answered."""
    boards = [search.game.board() for search in searches]
    choosers = [Chooser(s.args[1]) if s.kind in ("best", "play") else None for s in searches]
    outcomes = student.run([s.plan(b, c) for s, b, c in zip(searches, boards, choosers)])
    runs = []
    for search, board, chooser, outcome in zip(searches, boards, choosers, outcomes):
        want, want_record = expected(search)
        record = board.summary()
        record["made"] = record["made"][:len(want_record["made"]) + 1]   # enough to compare
        runs.append(Run(search, kept(refused(outcome, board.handout), ANSWER_VALUES), record,
                        want, want_record, ran=outcome.answered or outcome.raised is not None,
                        choices=tuple(chooser.choices) if chooser else ()))
    return runs


def cases(runs) -> list[Case]:
    return [Case(r.search.call, (r,), r.search.game.text, r.want) for r in runs]


def check_runs(summary, runs, judge, hint=None):
    """check_all over runs: `judge(run)` sees the student's answer (the plan's
    value) and the grader's records; the feedback shows the reason."""
    chosen = cases(runs)
    try:
        check_all(summary, chosen, [r.outcome for r in runs],
                  lambda case, outcome: judge(case.args[0]), hint=hint)
    except CheckFailed as failure:
        if failure.problem:
            failure.got, failure.problem = failure.problem, None
        _headline(failure)
        raise


def _headline(failure):
    """Say what happened when the smallest failure is an exception, not a wrong answer."""
    got, call = failure.got or "", failure.call or "the search()"
    name = call.split(".")[1].split("(")[0] if "." in call else call.split("(")[0]
    if got.startswith("is not implemented yet"):
        failure.summary = f"{name} is not implemented yet"
    elif got.startswith("raised "):
        failure.summary = f"{name} raised an exception instead of answering"


def window(alpha, beta):
    return f"{alpha}, {beta}".replace("inf", "infinity")


def number(value):
    return type(value) in (int, float)


def smallest_first(searches):
    return sorted(searches, key=lambda s: (s.game.size, s.args[0]))


# ------------------------------------------------------------ the student's board
# Plain data, no proxies. Each plan checks CHUNK positions. The methods' calls
# are caught one by one, so one position's exception does not hide the others;
# a board that cannot even be built stops its plan, and a plan whose positions
# loop forever times out as a whole (after CHUNK_TIMEOUT calls' time).
CHUNK = 50
CHUNK_TIMEOUT = 5


def run_chunked(student, name, items, steps):
    """For each item, `steps(plan, item)` adds its calls and returns the Value to
    judge (calls that may raise are added with catch=True); plans of CHUNK items
    run in one request. One Outcome per item."""
    plans = _chunk_plans(name, items, steps)
    outcomes = student.run([plan for plan, _ in plans],
                           timeout=student.timeouts.call * CHUNK_TIMEOUT)
    found = []
    for (_, item_of_step), outcome, start in zip(plans, outcomes, range(0, len(items), CHUNK)):
        found += _unpack(outcome, min(CHUNK, len(items) - start), item_of_step)
    return found


_PLANS = {}


def _chunk_plans(name, items, steps):
    """The plans for `items` (cached: the items are cached too), each with a table
    from step number to the item it belongs to."""
    key = (name, id(items))
    if key not in _PLANS:
        plans = []
        for start in range(0, len(items), CHUNK):
            plan, item_of_step, values = Plan(name), [], []
            for index, item in enumerate(items[start:start + CHUNK]):
                values.append(steps(plan, item))
                item_of_step += [index] * (len(plan.steps) - len(item_of_step))
            plans.append((plan.returns(values), tuple(item_of_step)))
        _PLANS[key] = (items, tuple(plans))
    return _PLANS[key][1]


def _caught(value):
    return type(value) is dict and set(value) == {"raised"} and type(value["raised"]) is dict


def _raised(raised):
    return Outcome(raised={k: None if raised.get(k) is None else str(raised[k])
                           for k in ("type", "message", "where")})


def _unpack(outcome, count, item_of_step):
    """One Outcome per item of a chunk's plan."""
    if outcome.raised is not None:
        # A step without catch raised (building the board): that item raised, the
        # others of the chunk were not judged.
        step = outcome.raised.get("step")
        failing = item_of_step[step] if type(step) is int and step < len(item_of_step) else 0
        unreached = Outcome(failure="unreached", detail="not judged: an earlier call failed")
        return [_raised(outcome.raised) if i == failing else unreached for i in range(count)]
    if not outcome.answered:
        detail = outcome.detail
        if outcome.failure == "timeout":
            detail += f" (while checking {count} positions in one go; this is the first of them)"
        return [Outcome(failure=outcome.failure, detail=detail)] * count
    values = outcome.value
    if type(values) is not list or len(values) != count:
        return [Outcome(failure="bad_value", detail="the answers came back malformed")] * count
    return [_raised(v["raised"]) if _caught(v) else Outcome(ok=True, value=v) for v in values]


READS = ("winner", "evaluate", "getSide", "getMoves")


@functools.cache
def own_items():
    """Every position, with the move makeMove/undoMove try there (None when decided)."""
    found = []
    for index, cells in enumerate(positions()):
        legal = games.MOVES[games.key_of(cells)]
        found.append((cells, legal[index % len(legal)] if legal else None))
    return tuple(found)


def _own_steps(plan, item):
    """All of one position in one go (its rows sent once, not six times): the four
    reading methods, then makeMove, a copy of the field right after it (a new
    board built from it) and undoMove, on the same board. Every method call is
    caught on its own."""
    cells, move = item
    board = plan.call("negamax.TicTacToe", rows_of(cells))
    reads = [plan.call(board.attr(method), catch=True)
             if method != "getSide" or move is not None else None for method in READS]
    if move is None:
        return reads
    made = plan.call(board.attr("makeMove"), move, catch=True)
    copy = plan.call("negamax.TicTacToe", plan.get(board.attr("field")), catch=True)
    undone = plan.call(board.attr("undoMove"), move, catch=True)
    return reads + [made, plan.get(copy.attr("field"), default=None), undone,
                    plan.get(board.attr("field"), default=None)]


#: A right answer of one position's calls holds fewer values (two fields, nine moves).
OWN_VALUES = 150


@pytest.fixture(scope="session")
def own_board_runs(student):
    """The student's board on every position, one Outcome per position (own_items),
    each cut to verdict size."""
    return [kept(o, OWN_VALUES)
            for o in run_chunked(student, "TicTacToe", own_items(), _own_steps)]


def _column(outcome, columns):
    """The part of a position's combined outcome that one check judges."""
    values = outcome.value
    if type(values) is not list or len(values) <= max(columns):
        return Outcome(failure="bad_value", detail="the answers came back malformed")
    picked = [values[c] for c in columns]
    if len(picked) == 1:
        return _raised(picked[0]["raised"]) if _caught(picked[0]) else Outcome(ok=True,
                                                                             value=picked[0])
    return Outcome(ok=True, value=picked)


def own_outcomes(student, own_runs, name, chosen, columns, steps, keep=lambda item: True):
    """The outcomes of `chosen` (cases in own_items order, `keep` selects the
    items they come from), taken from the combined runs; if any position of
    those did not answer (a timeout, a crash), this check runs its own calls
    alone, so one method's endless loop does not fail the others' checks."""
    picked = [o for item, o in zip(own_items(), own_runs) if keep(item)]
    if all(o.answered for o in picked):
        return [_column(o, cols) for o in picked for cols in columns]
    return run_chunked(student, name, chosen, steps)


@functools.cache
def board_cases(method):
    boards = positions() if method != "getSide" else open_positions()
    return tuple(Case(f"TicTacToe(field).{method}()", (cells,), draw(cells),
                      getattr(ref.TicTacToe(rows_of(cells)), method)()) for cells in boards)


def _method_steps(method):
    def steps(plan, case):
        board = plan.call("negamax.TicTacToe", rows_of(case.args[0]))
        return plan.call(board.attr(method), catch=True)
    return steps


def exact(case, outcome):
    got, want = outcome.value, case.expected
    if type(got) is not type(want) or got != want:
        return f"returned {short(got)}"
    return None


def _check_board(student, own_runs, method, summary, hint):
    chosen = board_cases(method)
    keep = (lambda item: item[1] is not None) if method == "getSide" else (lambda item: True)
    outcomes = own_outcomes(student, own_runs, f"TicTacToe.{method}", chosen,
                            [(READS.index(method),)], _method_steps(method), keep)
    try:
        check_all(summary, chosen, outcomes, exact, hint=hint)
    except CheckFailed as failure:
        _headline(failure)
        raise


def test_winner(student, own_board_runs):
    """TicTacToe.winner finds the player with three in a line on all 5,478 positions"""
    _check_board(student, own_board_runs, "winner", "winner returned the wrong player",
                 "check the three rows, the three columns and both diagonals; 0 if nobody")


def test_evaluate(student, own_board_runs):
    """TicTacToe.evaluate scores all 5,478 positions from player 1's view"""
    _check_board(student, own_board_runs, "evaluate", "evaluate returned the wrong score",
                 "+(10 + empty cells) for a line of player 1, -(10 + empty cells) for "
                 "player 2, 0 otherwise")


def test_get_side(student, own_board_runs):
    """TicTacToe.getSide names the player to move on every unfinished position"""
    _check_board(student, own_board_runs, "getSide", "getSide returned the wrong player",
                 "player 1 moves when the number of marks is even")


def test_get_moves(student, own_board_runs):
    """TicTacToe.getMoves lists the free cells in order, and none once the game is decided"""
    _check_board(student, own_board_runs, "getMoves", "getMoves returned the wrong moves",
                 "a list of (x, y), row by row from the top; [] after a win or on a full "
                 "board, so no search ever plays past the end of a game")


@functools.cache
def make_undo_cases():
    """Per open position its move from own_items: the field after makeMove, and
    after makeMove and undoMove."""
    found = []
    for cells, move in own_items():
        if move is None:
            continue
        board = ref.TicTacToe(rows_of(cells))
        board.makeMove(move)
        made = [list(row) for row in board.field]
        found.append(Case(f"makeMove({move})", (cells, move, "makeMove"), draw(cells), made))
        found.append(Case(f"makeMove({move}) then undoMove({move})", (cells, move, "undoMove"),
                          draw(cells), rows_of(cells)))
    return tuple(found)


def _make_undo_steps(plan, case):
    """What makeMove (and undoMove) returned or raised, then the field."""
    cells, move, last = case.args
    board = plan.call("negamax.TicTacToe", rows_of(cells))
    calls = [plan.call(board.attr("makeMove"), move, catch=True)]
    if last == "undoMove":
        calls.append(plan.call(board.attr("undoMove"), move, catch=True))
    return calls + [plan.get(board.attr("field"), default=None)]


def test_make_and_undo(student, own_board_runs):
    """TicTacToe.makeMove marks the cell for the player to move; undoMove empties it again"""
    chosen = make_undo_cases()

    def judge(case, outcome):
        *calls, field = outcome.value
        for method, call in zip(("makeMove", "undoMove"), calls):
            if _caught(call):
                return f"{method} {describe(_raised(call['raised']))}"
        if field != case.expected:
            return f"the field became {short(field)}"
        return None
    first = len(READS)
    outcomes = own_outcomes(student, own_board_runs, "TicTacToe.makeMove", chosen,
                            [(first, first + 1), (first, first + 2, first + 3)],
                            _make_undo_steps, keep=lambda item: item[1] is not None)
    try:
        check_all("makeMove or undoMove changed the wrong cell", chosen, outcomes, judge,
                  hint="the move is (x, y): field[y][x]; getSide() says whose mark it is")
    except CheckFailed as failure:
        if failure.problem:
            failure.got, failure.problem = failure.problem, None
        method, _, rest = (failure.got or "").partition(" ")
        if method in ("makeMove", "undoMove") and rest.startswith("is not implemented yet"):
            failure.summary = f"{method} is not implemented yet"
        elif method in ("makeMove", "undoMove") and rest.startswith("raised "):
            failure.summary = f"{method} raised an exception"
        raise


@functools.cache
def bad_cell_cases():
    rng = random.Random(5)
    found = []
    for cells in sample(40, 1, 8, 6):
        full = [(i % 3, i // 3) for i in range(9) if cells[i]]
        free = [(i % 3, i // 3) for i in range(9) if not cells[i]]
        for method, move in (("makeMove", rng.choice(full)), ("undoMove", rng.choice(free))):
            state = "a taken" if method == "makeMove" else "an empty"
            plan = Plan(f"TicTacToe.{method}")
            board = plan.call("negamax.TicTacToe", rows_of(cells))
            plan.returns(plan.call(board.attr(method), move))
            found.append((Case(f"{method}({move}) on {state} cell", (cells, move), draw(cells),
                               "ValueError"), plan))
    return tuple(found)


def test_make_and_undo_refuse_bad_cells(student):
    """makeMove refuses a taken cell and undoMove an empty one (ValueError)"""
    found = bad_cell_cases()
    for (case, _), outcome in zip(found, student.run([plan for _, plan in found])):
        require(outcome)
        if outcome.failure:
            got = describe(outcome)
        elif outcome.raised is None:
            got = f"returned {short(outcome.value)} instead of raising ValueError"
        elif outcome.raised["type"] != "ValueError":
            got = describe(outcome)
        else:
            continue
        raise CheckFailed(f"{case.call.split('(')[0]} did not refuse a bad cell",
                          call=case.call, position=case.position, got=got,
                          expected="ValueError",
                          hint="raise ValueError('...') for a cell in the wrong state")


# ------------------------------------------------------------ search runs (shared)
@functools.cache
def explore_searches():
    """Values and work on tic-tac-toe boards only the grader knows."""
    found, index = [], 0
    for depth, count in ((1, 45), (2, 80), (3, 45)):
        for cells in sample(count, 0, 8, 70 + depth):
            index += 1
            game = twisted(cells, index, noise=9 if index % 2 else 0,
                           keep=0.6 if index % 3 == 0 else 1.0)
            found.append(Search("explore", game, (depth, -INF, INF)))
    for cells in sample(50, 5, 8, 74):
        index += 1
        found.append(Search("explore", twisted(cells, index), (FULL, -INF, INF)))
    for cells in sample(30, 2, 4, 75):
        index += 1
        found.append(Search("explore", twisted(cells, index, keep=0.5), (FULL, -INF, INF)))
    return tuple(smallest_first(found))


@functools.cache
def tree_searches():
    """Every depth from 1 to the tree's own (deeper searches the same as that)."""
    found = []
    for game in trees():
        for depth in range(1, games.tree_depth(game.tree) + 1):
            found.append(Search("explore", game, (depth, -INF, INF)))
    return tuple(smallest_first(found))


@functools.cache
def evaluated_searches():
    found, index = [], 2000
    for depth in (1, 2, 3):
        for cells in sample(25, 0, 8, 20 + depth):
            index += 1
            found.append(Search("evaluated", twisted(cells, index, noise=9 if depth < 3 else 0,
                                                     keep=0.6 if index % 2 else 1.0), (depth,)))
    for cells in sample(25, 5, 8, 24):
        index += 1
        found.append(Search("evaluated", twisted(cells, index), (FULL,)))
    for game in trees()[::2]:
        found.append(Search("evaluated", game, (FULL,)))
    return tuple(smallest_first(found))


@functools.cache
def best_searches():
    found, index = [], 3000
    for depth in (1, 2, 3):
        for cells in sample(20, 0, 8, 30 + depth):
            index += 1
            found.append(Search("best", twisted(cells, index, noise=9, keep=0.7), (depth, index)))
    for cells in sample(20, 5, 8, 34):
        index += 1
        found.append(Search("best", twisted(cells, index), (FULL, index)))
    for game in trees()[1::2]:
        index += 1
        found.append(Search("best", game, (FULL, index)))
    return tuple(smallest_first(found))


@pytest.fixture(scope="session")
def explore_runs(student):
    return run(student, explore_searches())


@pytest.fixture(scope="session")
def tree_runs(student):
    return run(student, tree_searches())


@pytest.fixture(scope="session")
def evaluated_runs(student):
    return run(student, evaluated_searches())


@pytest.fixture(scope="session")
def best_runs(student):
    return run(student, best_searches())


def answer(r: Run, key: str):
    """The student's answer under `key`, or None with the reason it is missing."""
    got = r.outcome.value
    if type(got) is not dict or key not in got:
        return None, f"the plan returned {short(got)}"
    return got[key], None


# ------------------------------------------------------------ values
def test_explore_values(student, explore_runs, tree_runs):
    """explore returns the depth-limited game value (depths 1 to 3 anywhere, 9 on endgames, and on trees)"""
    def judge(r):
        got, problem = answer(r, "value")
        if problem:
            return problem
        if not number(got):
            return f"returned {short(got)}, not a number"
        return None if got == r.want["value"] else f"returned {short(got)}"
    check_runs("explore returned the wrong value", explore_runs + tree_runs, judge,
               hint="the value is from the view of the player to move: the highest of the "
                    "negated values of the children, in the order getMoves lists them")


def _evaluated_reason(got, want):
    if type(got) is not list or not all(type(e) is tuple and len(e) == 3 for e in got):
        return f"returned {short(got)}: expected a list of (value, move, nodes) tuples"
    if sorted(map(repr, (m for _, m, _ in got))) != sorted(map(repr, (m for _, m, _ in want))):
        return (f"listed the moves {short([m for _, m, _ in got])}, not every move "
                "getMoves offers")
    values = {repr(m): v for v, m, _ in got}
    for v, m, _ in want:
        if not number(values[repr(m)]) or values[repr(m)] != v:
            return f"gave move {m!r} the value {short(values[repr(m)])}"
    if [(v, m) for v, m, _ in got] != [(v, m) for v, m, _ in want]:
        return (f"the order {short([m for _, m, _ in got])} is not best first with ties "
                "in getMoves order")
    return None


def test_evaluated_moves(student, evaluated_runs):
    """getEvaluatedMoves values every move exactly and sorts best first, ties in move order"""
    def judge(r):
        got, problem = answer(r, "moves")
        return problem or _evaluated_reason(got, r.want["moves"])
    check_runs("getEvaluatedMoves returned wrong values or order", evaluated_runs, judge,
               hint="value = -explore(depth - 1, -infinity, +infinity) after making the move; "
                    "sort by value, highest first (a stable sort keeps ties in order)")


def best_moves(evaluated):
    return [m for v, m, _ in evaluated if v == evaluated[0][0]]


@functools.cache
def best_of(search: Search):
    """The best moves at the search's depth, from the reference's evaluated moves."""
    evaluated = expected(Search("evaluated", search.game, (search.args[0],)))[0]["moves"]
    return best_moves(evaluated)


def test_best_move(student, best_runs):
    """getBestMove returns a move with the best value at the given depth"""
    def judge(r):
        move, problem = answer(r, "move")
        if problem:
            return problem
        if move not in best_of(r.search):
            return f"{short(move)} is not one of the best moves"
        return None
    check_runs("getBestMove chose a move that is not among the best", best_runs, judge,
               hint="choose among the moves whose value equals the best value")


SEEDS = 24


@functools.cache
def choice_games():
    """(game, depth) with two or more best moves and at least one worse move at
    that depth, cheap to search SEEDS times: small random trees at full depth, and
    tic-tac-toe positions whose board scores undecided positions itself (values
    from -3 to 3, so ties are common) at depth 1."""
    found = []
    for seed in range(400, 3000):
        tree = games.random_tree(seed, depth=2, widths=(2, 4), values=(-3, 3), decided=0.2)
        game = Game(f"random tie {len(found) + 1}", tree=tree, first=1 + seed % 2)
        best = best_of(Search("best", game, (FULL, 0)))
        if 2 <= len(best) < len(tree.children) and games.tree_size(tree) <= 12:
            found.append((game, FULL))
        if len(found) == 3:
            break
    for index, cells in enumerate(sample(300, 2, 6, 9)):
        game = twisted(cells, 4000 + index, noise=3)
        best = best_of(Search("best", game, (1, 0)))
        if 2 <= len(best) < len(KitBoard(cells, game.twist).getMoves()):
            found.append((game, 1))
        if len(found) == 6:
            break
    return tuple(found)


@functools.cache
def choice_searches():
    return tuple(Search("best", game, (depth, seed)) for game, depth in choice_games()
                 for seed in range(SEEDS))


def chose_with_the_rng(r: Run, move, best) -> str | None:
    """Why `move` is not what the grader's rng chose among exactly the best moves.
    Believed: what the rng was offered and what it chose (the grader's records),
    never how random the answers look: a generator of the search's own is not the
    rng it was given, and its answers could not be reproduced."""
    if not r.choices:
        return ("never asked rng (the grader's generator) to choose: pick with "
                "rng.choice(bestMoves)")
    offered, chosen = r.choices[-1]
    if type(offered) is not list or sorted(map(repr, offered)) != sorted(map(repr, best)):
        return (f"rng.choice was offered {short(offered)}, not the equally best moves "
                f"{short(best)} (each of them once)")
    if move != chosen:
        return f"returned {short(move)}, not {short(chosen)}, the move rng.choice chose"
    return None


def test_best_move_random_choice(student):
    """getBestMove picks every one of several equally good moves over 24 seeds, and never a worse one"""
    searches = choice_searches()
    runs = run(student, searches)
    for start in range(0, len(runs), SEEDS):
        group = runs[start:start + SEEDS]
        game = group[0].search.game
        best = best_of(group[0].search)
        call = (f"{group[0].search.call} with rng = random.Random(seed), "
                f"seeds 0 to {SEEDS - 1}")
        picks = []
        for r in group:
            require(r.outcome)
            move, problem = answer(r, "move") if r.outcome.answered else (None, describe(r.outcome))
            if problem:
                failure = CheckFailed("getBestMove did not answer", call=call,
                                      position=game.text, got=problem)
                _headline(failure)
                raise failure
            picks.append((r, move))
        wrong = [m for _, m in picks if m not in best]
        if wrong:
            raise CheckFailed("getBestMove chose a move that is not among the best",
                              call=call, position=game.text, got=f"chose {short(wrong[0])}",
                              expected=" or ".join(map(repr, best)))
        hint = ("collect every move with the best value, in getMoves order, and pick one "
                "with rng.choice(bestMoves) (the random module if rng is None)")
        for r, move in picks:
            problem = chose_with_the_rng(r, move, best)
            if problem:
                raise CheckFailed(
                    "getBestMove does not choose at random among the equally best moves",
                    call=call, position=game.text, got=problem,
                    expected=" and ".join(map(repr, best)), hint=hint)
        never = [m for m in best if m not in [move for _, move in picks]]
        if never:
            raise CheckFailed(
                "getBestMove does not choose at random among the equally best moves",
                call=call, position=game.text,
                got=f"chose only {short(sorted({repr(m) for _, m in picks}))}, never "
                    f"{short(never)}", expected=" and ".join(map(repr, best)), hint=hint)


@functools.cache
def play_searches():
    found, index = [], 5000
    for depth in (1, 2, 3):
        for cells in sample(20, 0, 8, 40 + depth):
            index += 1
            found.append(Search("play", twisted(cells, index, noise=9, keep=0.7),
                                (depth, index)))
    for depth in (1, 2):
        for cells in decided_positions()[::120]:
            index += 1
            found.append(Search("play", twisted(cells, index), (depth, index)))
    return tuple(smallest_first(found))


def test_short_sighted_play(student):
    """ShortSightedOpponent.play makes a best move at its own depth (None when decided)"""
    def judge(r):
        move, problem = answer(r, "move")
        if problem:
            return problem
        left = r.record["pending"]
        if not r.search.game.board().getMoves():
            if move is not None:
                return f"returned {short(move)} on a decided game"
            if left or r.record["counts"]["makeMove"]:
                return "made a move on a decided game"
            return None
        if move not in best_of(r.search):
            return f"{short(move)} is not one of the best moves at this depth"
        if left != [shown(move)]:
            return (f"returned {short(move)} but left the moves {', '.join(left) or 'none'} "
                    "on the board")
        return None
    check_runs("ShortSightedOpponent.play did not make a best move",
               run(student, play_searches()), judge,
               hint="getBestMove(self.depth, rng), then make that move on the board")


@functools.cache
def edge_searches():
    decided = Game("a decided game", decided_positions()[0], twist_for(6000))
    opening = open_positions()[40]
    noisy = twisted(opening, 6001, noise=9)
    found = [
        (Search("evaluated", decided, (3,)), "getEvaluatedMoves must return [] on a decided game"),
        (Search("best", decided, (3, 0)), "getBestMove must return None on a decided game"),
        (Search("evaluated", noisy, (0,)), "getEvaluatedMoves(0) must raise ValueError"),
    ]
    for depth in (1, 2):
        found.append((Search("default", noisy, (depth,)),
                      "getEvaluatedMoves() without a depth must search self.depth"))
    return tuple(found)


def test_edge_cases(student):
    """getEvaluatedMoves: [] when decided, uses self.depth by default, refuses depth < 1"""
    found = edge_searches()
    for (search, summary), r in zip(found, run(student, [s for s, _ in found])):
        require(r.outcome)
        got = r.outcome.value if r.outcome.answered and type(r.outcome.value) is dict else None
        if "raised" in r.want:
            good = r.outcome.raised is not None and r.outcome.raised["type"] == "ValueError"
            want = "ValueError"
        else:
            key = next(iter(r.want))
            good = got is not None and key in got and got[key] == r.want[key] and \
                type(got[key]) is type(r.want[key])
            want = short(r.want[key])
        if not good:
            raise CheckFailed(summary, call=search.call, position=search.game.text,
                              got=describe(r.outcome), expected=want)


# ------------------------------------------------------------ technique
def work_reason(r: Run, counter: bool = True):
    """Why the student's search did not do alpha-beta's work, from the grader's
    board records (and, with `counter`, the treeNodeCounter the search reports)."""
    got, want = r.record, r.want_record
    if got["expanded"] != want["expanded"]:
        return (f"expanded {got['expanded']} positions (the grader's board saw moves made "
                f"from {got['expanded']} positions); alpha-beta expands {want['expanded']}")
    if got["counts"]["evaluate"] != want["counts"]["evaluate"]:
        return (f"called evaluate {got['counts']['evaluate']} times; alpha-beta calls it "
                f"{want['counts']['evaluate']} times")
    if got["counts"]["makeMove"] != want["counts"]["makeMove"]:
        return (f"made {got['counts']['makeMove']} moves; alpha-beta makes "
                f"{want['counts']['makeMove']}")
    for count, (mine, theirs) in enumerate(zip(got["made"], want["made"]), 1):
        if mine != theirs:
            return (f"made the moves in another order than alpha-beta: move {count} was "
                    f"{short(mine)}, alpha-beta's is {short(theirs)}")
    if counter:
        nodes, problem = answer(r, "nodes")
        if problem:
            return problem
        if nodes != r.want["nodes"]:
            return (f"treeNodeCounter says {short(nodes)} expanded nodes; alpha-beta "
                    f"expands {r.want['nodes']}")
    return None


WORK_HINT = ("try the moves in getMoves order, cut (return beta) as soon as a child's value "
             "is >= beta, and count a node once per explore call that is not a leaf")


def _value_then_work(r: Run):
    got, problem = answer(r, "value")
    if problem:
        return problem
    if not number(got) or got != r.want["value"]:
        return f"returned {short(got)}"
    return work_reason(r)


def test_work_on_hand_built_trees(student, tree_runs):
    """explore expands exactly the nodes alpha-beta expands, in its order, on hand-built trees"""
    check_runs("explore did not do the work of alpha-beta", tree_runs, _value_then_work,
               hint=WORK_HINT)


def test_work_on_positions(student, explore_runs, evaluated_runs):
    """explore and getEvaluatedMoves expand exactly the nodes alpha-beta expands on tic-tac-toe"""
    check_runs("explore did not do the work of alpha-beta", explore_runs, _value_then_work,
               hint=WORK_HINT)

    def judge(r):
        got, problem = answer(r, "moves")
        if problem:
            return problem
        nodes = {repr(e[1]): e[2] for e in got if type(e) is tuple and len(e) == 3} \
            if type(got) is list else {}
        for _, m, n in r.want["moves"]:
            if nodes.get(repr(m)) != n:
                return (f"reported {short(nodes.get(repr(m)))} nodes for move {m!r}; "
                        f"alpha-beta expands {n}")
        return work_reason(r, counter=False)
    check_runs("getEvaluatedMoves did not do the work of alpha-beta", evaluated_runs, judge,
               hint="reset treeNodeCounter to 0 before each move, search it with the full "
                    "window, and record the counter afterwards")


@functools.cache
def leaf_searches():
    found, index = [], 7000
    for cells in sample(120, 0, 8, 8):
        index += 1
        found.append(Search("explore", twisted(cells, index, noise=9), (0, -INF, INF)))
    decided = decided_positions()
    for depth in (1, 4):
        for cells in random.Random(depth).sample(decided, 60):
            index += 1
            found.append(Search("explore", twisted(cells, index), (depth, -INF, INF)))
    for game in trees():
        found.append(Search("explore", game, (0, -INF, INF)))
    return tuple(smallest_first(found))


def test_explore_leaves(student):
    """explore evaluates a leaf (depth 0, or a decided game) once, from the mover's view"""
    def judge(r):
        got, problem = answer(r, "value")
        if problem:
            return problem
        if not number(got) or got != r.want["value"]:
            side = r.search.game.board().getSide()
            return (f"returned {short(got)}: a leaf is worth evaluate() from the view of "
                    f"the player to move (player {side} here)")
        nodes, problem = answer(r, "nodes")
        if nodes != 0:
            return f"counted {short(nodes)} expanded nodes at a leaf"
        if r.record["counts"]["evaluate"] != 1:
            return f"called evaluate {r.record['counts']['evaluate']} times, not once"
        if r.record["counts"]["makeMove"]:
            return "made a move from a leaf: a decided game is never searched further"
        return None
    check_runs("explore got a leaf wrong", run(student, leaf_searches()), judge,
               hint="at depth <= 0 or without moves: return evaluate() if player 1 is to move, "
                    "-evaluate() if player 2 is")


@functools.cache
def depth_searches():
    found, index = [], 8000
    for depth in (1, 2, 3, 4):
        for cells in sample(15, 0, 6, 50 + depth):
            index += 1
            found.append(Search("explore", twisted(cells, index, noise=9, keep=0.5),
                                (depth, -INF, INF)))
        for game in trees()[depth % 2::2]:
            found.append(Search("explore", game, (depth, -INF, INF)))
    return tuple(smallest_first(found))


def test_depth_limit(student):
    """explore looks exactly `depth` half-moves ahead and evaluates only there (or at decided games)"""
    def judge(r):
        got, depth = r.record, r.search.args[0]
        if got["max_ply"] > depth:
            return (f"made moves {got['max_ply']} half-moves deep with depth {depth}: "
                    "the depth limit is off by one")
        above = sorted(p for p in got["open_evaluate_plies"] if p < depth)
        if above:
            return (f"called evaluate on an undecided position {above[0]} half-move(s) below "
                    f"the root, above the depth limit {depth}")
        if not got["counts"]["makeMove"] and r.want_record["counts"]["makeMove"]:
            return "made no move at all: nothing was searched"
        return None
    check_runs("explore did not respect its depth limit", run(student, depth_searches()),
               judge, hint="depth counts the half-moves still to look ahead: evaluate when it "
                           "reaches 0, and only then (or when there are no moves)")


WINDOWS = ((-1, 1), (0, 1), (-1, 0), (-15, -11), (11, 13), (-2, 2), (5, 30))


@functools.cache
def window_searches():
    found, index = [], 9000
    for position, cells in enumerate(sample(30, 5, 8, 60)):
        for alpha, beta in (WINDOWS[position % 7], WINDOWS[(position + 3) % 7]):
            index += 1
            found.append(Search("explore", twisted(cells, index), (FULL, alpha, beta)))
    narrow = ((-1, 1), (3, 4), (5, 8), (-7, -5))
    for number, game in enumerate(trees()):
        for depth in (2, 3):
            for shift in (0, 2):
                alpha, beta = narrow[(number + depth + shift) % 4]
                found.append(Search("explore", game, (depth, alpha, beta)))
    return tuple(smallest_first(found))


def test_fail_hard_windows(student):
    """explore with a narrow window is fail-hard: it returns a value inside [alpha, beta]"""
    def judge(r):
        got, problem = answer(r, "value")
        if problem:
            return problem
        if not number(got) or got != r.want["value"]:
            alpha, beta = r.search.args[1], r.search.args[2]
            inside = number(got) and alpha <= got <= beta
            return f"returned {short(got)}" + ("" if inside else
                                               f", outside the window [{alpha}, {beta}]")
        return None
    check_runs("explore returned the wrong value for a narrow window",
               run(student, window_searches()), judge,
               hint="fail-hard: return beta on a cut, and alpha (raised by better children) "
                    "after the last move")


def test_board_is_restored(student, explore_runs, evaluated_runs, best_runs, tree_runs):
    """every search leaves the board exactly as it found it (make/undo discipline)"""
    def judge(r):
        got = r.record
        if got["violations"]:
            return got["violations"][0]
        if got["pending"]:
            return (f"left the moves {', '.join(got['pending'])} on the board "
                    "(made, never taken back)")
        if not got["restored"]:
            return "left the board different from before the search"
        return None
    judged = 0
    for runs in (explore_runs, tree_runs, evaluated_runs, best_runs):
        name = runs[0].search.call.split(".")[1].split("(")[0]
        # The board's records are ours, so a search that raised is judged too. A
        # search that made no move shows nothing (a timeout or a crash is reported
        # by the value checks).
        done = [r for r in runs if r.ran and r.record["counts"]["makeMove"]]
        judged += len(done)
        try:
            check_all(f"{name} broke the make/undo discipline", cases(done),
                      [_as_answered(r.outcome) for r in done],
                      lambda case, outcome: judge(case.args[0]),
                      hint="every makeMove needs an undoMove of the same move before you "
                           "return, on a cut too; take back the last move made first")
        except CheckFailed as failure:
            if failure.problem:
                failure.got, failure.problem = failure.problem, None
            raise
    if not judged:      # nothing searched, so nothing was shown to be restored
        first = explore_runs[0]
        require(first.outcome)
        raise CheckFailed("no search made a move, so the make/undo discipline could not be "
                          "checked", call=first.search.call, position=first.search.game.text,
                          got=describe(first.outcome))


def _as_answered(outcome):
    """A search that raised (or was refused a move) is judged by the board's records
    as well."""
    if outcome.answered:
        return outcome
    return type(outcome)(ok=True, value={"raised": outcome.raised or outcome.detail})

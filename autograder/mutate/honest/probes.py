"""What the honest rewrites need to know of each of the kit's assignments: the calls
that show a rewritten reference still behaves like the reference (behaviour.py),
and the game its `__main__` block plays (the `main_block` rewrite).

A probe is Python run with the module imported under its name: each `print(...)`
records its arguments, `raises(f, *args)` the exception a call raises, and `random`
is seeded alike for both runs; no wall clock. An assignment without a probe here is
probed with its notebook's "try your functions" cell ([notebook] try).
"""

PROBES = {
    "tictactoe": '''
E = None
boards = [tictactoe.initial_state(),
          [["X", "O", E], [E, "X", E], [E, E, "O"]],
          [["X", "X", "X"], ["O", "O", E], [E, E, E]],
          [["X", "O", "X"], ["X", "O", "O"], ["O", "X", "X"]],
          [["O", E, E], [E, "X", E], [E, E, "X"]],
          [["X", "O", "X"], [E, "O", E], [E, E, E]]]
for board in boards:
    print(tictactoe.player(board), tictactoe.actions(board), tictactoe.winner(board),
          tictactoe.terminal(board))
    if tictactoe.terminal(board):
        print(tictactoe.utility(board))
    print(tictactoe.minimax(board))
    for action in sorted(tictactoe.actions(board))[:3]:
        print(tictactoe.result(board, action), board)
print(raises(tictactoe.result, boards[1], (0, 0)), raises(tictactoe.result, boards[1], (3, 0)),
      raises(tictactoe.result, boards[1], (-1, 2)), raises(tictactoe.result, boards[1], "a"))
''',
    "negamax": '''
board = negamax.TicTacToe()
board.makeMove((1, 1))
print(str(board), board.getSide(), board.getMoves(), board.evaluate(), board.winner())
searcher = negamax.NegaMax(board, depth=3)
print(searcher.explore(3), searcher.treeNodeCounter)
print(searcher.explore(2, -1, 1), searcher.treeNodeCounter)
print(searcher.getEvaluatedMoves(3))
print(searcher.getBestMove(3, random.Random(1)), searcher.treeNodeCounter)
print(negamax.ShortSightedOpponent(board, 2).play(random.Random(2)), str(board))
print(raises(board.makeMove, (1, 1)), raises(board.undoMove, (0, 2)),
      raises(searcher.getEvaluatedMoves, 0))
won = negamax.TicTacToe([[1, 1, 1], [2, 2, 0], [0, 0, 0]])
print(won.winner(), won.evaluate(), won.getMoves(), negamax.NegaMax(won).getBestMove())
board.undoMove((1, 1))
print(str(board), negamax.NegaMax(board, 4).getEvaluatedMoves())
''',
    "gametree": '''
for game in (gametree.TICTACTOE, gametree.BOARD_4X3, gametree.BOARD_4X4):
    print(sorted(sorted(line) for line in gametree.winning_lines(game)))
state = [4, 0]
print(gametree.nextstates(state), gametree.terminal_test(state), gametree.evaluation(state))
for done in ([0, 3, 1, 4, 2], [4, 0, 8, 2, 1, 7, 6, 3, 5], [4, 0, 1, 7]):
    print(gametree.evaluation(done), gametree.terminal_test(done))
stats = gametree.SearchStats()
print(gametree.maximize([4, 0, 8, 2], stats=stats), stats.as_dict())
print(gametree.minimize([4, 0, 8], stats=stats), stats.as_dict())
for bremse in (1, 2, 3, gametree.inf):
    stats = gametree.SearchStats()
    print(gametree.maximize_ab(state, bremse=bremse, stats=stats), stats.as_dict())
    stats = gametree.SearchStats()
    print(gametree.minimize_ab([4], -1, 1, bremse, stats=stats), stats.as_dict())
print(gametree.computer_move(state, bremse=3), gametree.computer_move([4, 0, 8]))
book = gametree.opening_book_4x4()
print(sorted(book.items()))
move = gametree.computer_move([], gametree.BOARD_4X4, book=book)
print(move, move is book[()])
table = {}
print(gametree.solve([4, 0]), gametree.solve([0, 1, 4], table=table), len(table))
print(gametree.solve([5, 6, 9], gametree.BOARD_4X4), gametree.solve([1, 5], gametree.BOARD_4X3))
''',
    "connect4": '''
state = [38, 37, 31, 30, 24]
board = connect4.getBoard(state)
print(board, [connect4.colNrs(i) for i in range(7)])
print([connect4.freeIn(board, i) for i in range(7)], connect4.free(board))
print(connect4.lines(board), connect4.lines(connect4.getBoard([])))
print(connect4.pattern_score(board), connect4.pattern_score(board, (1, 2, 3), 99))
print(connect4.evaluation(state), connect4.evaluation_b(state), connect4.nextstates(state))
print(connect4.terminal_test(state), connect4.terminal_test([38, 37, 31, 30, 24, 23, 17]),
      connect4.terminal_test(state, lambda state: 10 ** 5))
for bremse in (0, 1, 2, 3):
    stats = connect4.SearchStats()
    print(connect4.maximize(state[:4], bremse=bremse, stats=stats), stats.as_dict())
    stats = connect4.SearchStats()
    print(connect4.minimize(state, -50, 50, bremse, connect4.evaluation_b, stats,
                            connect4.centre_first), stats.as_dict())
children = connect4.nextstates(state)
print(connect4.centre_first(children), connect4.shallow_order(children, 1),
      connect4.shallow_order(connect4.nextstates(state[:4]), 2, connect4.evaluation_b))
book = {(): [38], (38,): [38, 31]}
move = connect4.book_move([38], book)
print(move, move is book[(38,)], connect4.book_move([1]), connect4.book_move([]))
for budget in (0.0, 0.05, 0.4):
    ticks = iter(range(10 ** 7))
    print(connect4.iterative_deepening(state, budget, clock=lambda: next(ticks) * 0.001))
ticks = iter(range(10 ** 7))
print(connect4.iterative_deepening([], 1, clock=lambda: next(ticks) * 0.0, max_bremse=2))
print(connect4.play_game(connect4.evaluation, connect4.evaluation_b, 1, (38, 37)))
print(connect4.tournament(connect4.evaluation, connect4.evaluation_b, ((38,), (35,)), 1))
''',
    "muehle": '''
start = muehle.initial_state()
print(muehle.to_list(start), muehle.to_tuple(muehle.to_list(start)),
      muehle.opponent(muehle.WHITE), muehle.opponent(muehle.BLACK))
state, player, seen = start, muehle.WHITE, []
for ply in range(40):
    successors = muehle.next_states(state, player)
    seen.append((len(successors), muehle.finished(state, player), muehle.utility(state, player),
                 muehle.heuristic(state, player)))
    if not successors:
        break
    state = muehle.to_tuple(successors[(ply * 7) % len(successors)])
    player = muehle.opponent(player)
print(seen, state)
board = [0] * 24
for point in (0, 1, 9, 10, 13):
    board[point] = muehle.WHITE
for point in (3, 4, 22):
    board[point] = muehle.BLACK
late = (tuple(board), (0, 0), 7)
print(sorted(map(repr, muehle.next_states(late, muehle.WHITE))),
      sorted(map(repr, muehle.next_states(list(late), muehle.BLACK))))
print(muehle.finished(late, muehle.BLACK), muehle.utility(late, muehle.BLACK),
      muehle.heuristic(list(late), muehle.BLACK))
calls = []
square = muehle.memoize(lambda x: calls.append(x) or x * x)
print(square(3), square(3), square(4), calls, sorted(square.cache.items()))
for depth in (1, 2):
    print(muehle.value_minimax(late, muehle.WHITE, depth))
    value, move = muehle.best_move_minimax(late, muehle.WHITE, depth, random.Random(depth))
    print(value, move)
muehle.clear_caches()
with muehle.count_nodes() as counts:
    print(muehle.value_ab(late, muehle.WHITE, -1, 1, 2), dict(counts))
print(muehle.get_order_value(late, muehle.WHITE, 3), muehle.get_order_value(late, muehle.WHITE, 1))
print(muehle.alpha_beta(late, muehle.BLACK, -1, 1, 2), sorted(map(repr, muehle.AB_CACHE.items())))
muehle.clear_caches()
print(muehle.best_move_ab(late, muehle.WHITE, 2), muehle.best_move_ab(start, muehle.WHITE, 1))
''',
}

#: The game a `__main__` block plays, with the module's own names.
GAMES = {
    "tictactoe": '''board = initial_state()
while not terminal(board):
    board = result(board, minimax(board))
print(board, winner(board))''',
    "negamax": '''board = TicTacToe()
players = {1: ShortSightedOpponent(board, 2), 2: ShortSightedOpponent(board, 4)}
while board.getMoves():
    players[board.getSide()].play()
print(board)
print(board.winner())''',
    "gametree": '''state = []
while not terminal_test(state):
    state = computer_move(state, bremse=4)
print(show(state))''',
    "connect4": '''state = [38]
while not terminal_test(state) and len(state) < 12:
    state = computer_move(state, bremse=2)
print(showBoard(getBoard(state)))''',
    "muehle": '''state, player = initial_state(), WHITE
for ply in range(12):
    if finished(state, player):
        break
    value, state = best_move_ab(state, player, 1)
    player = opponent(player)
print(draw_board(state))''',
}

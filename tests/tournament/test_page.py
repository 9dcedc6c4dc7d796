"""tournament.html as a teacher sees it, in a real headless Chromium.

A real tournament (the command line, in a PID namespace) writes the page; the
shared `page` fixture (tests/browser.py) opens it. Checked by what is shown: the
standings and both plots are there, a replay steps through a game stone by stone
on the drawn board (the SVG's stones, the caption, the screenshot's pixels), the
end shows the recorded result, and a player's exception text cannot inject markup.
"""

from __future__ import annotations

import io

import pytest

from . import helpers

INJECTED = "</script><script>document.title='injected'</script><b>bold</b>"
MALLORY = f"def iterative_deepening(state, budget, **options):\n    raise ValueError({INJECTED!r})\n"
RED = (0xD6, 0x28, 0x28)                 # x's stones (the connect4 referee's BOARD)
WHITE_STONE = (0xFB, 0xFB, 0xF6)         # white's stones (the muehle referee's BOARD)

STONES = """() => [...document.querySelectorAll('#board circle')]
                   .filter(c => c.dataset.stone).map(c => c.dataset.stone)"""


@pytest.fixture(scope="module")
def connect4_page(tmp_path_factory):
    base = tmp_path_factory.mktemp("tournament-page")
    subs = helpers.submissions(base / "subs", "connect4", ["ada_reference"])
    (subs / "mallory").mkdir()
    (subs / "mallory" / "connect4.py").write_text(MALLORY)
    helpers.run("connect4", subs, base / "out", "--depth", "2", "--bundled", "random,greedy",
                "--jobs", "2")
    return base / "out"


@pytest.fixture(scope="module")
def muehle_page(tmp_path_factory):
    base = tmp_path_factory.mktemp("tournament-page-muehle")
    subs = helpers.submissions(base / "subs", "muehle", ["ada_correct"])
    helpers.run("muehle", subs, base / "out", "--depth", "1", "--bundled", "greedy",
                "--jobs", "2")
    return base / "out"


def pixels(png: bytes, colour, tolerance=40) -> int:
    import numpy
    from PIL import Image
    image = numpy.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=int)
    return int((abs(image - numpy.array(colour)) <= tolerance).all(axis=2).sum())


def open_game(page, out, game):
    page.goto((out / "tournament.html").as_uri())
    page.locator(f"#replay-{game['game']}").click()
    return game


@pytest.mark.slow
@pytest.mark.hostile
def test_replay_steps_through_a_game_on_the_drawn_board(page, connect4_page, tmp_path):
    games = helpers.games(connect4_page)
    game = max((g for g in games if not g["failure"]), key=lambda g: len(g["moves"]))
    open_game(page, connect4_page, game)
    total = len(game["opening"]) + len(game["moves"])
    assert page.evaluate(STONES) == []
    assert page.locator("#caption").inner_text().startswith(f"Move 0 of {total}")
    empty = page.locator("#board").screenshot()
    assert pixels(empty, RED) == 0

    for _ in range(5):
        page.locator("#next").click()
    shown = page.evaluate(STONES)
    assert sorted(shown) == ["o", "o", "x", "x", "x"]
    assert page.locator("#board circle[data-marked]").count() == 1   # the last stone
    caption = page.locator("#caption").inner_text()
    assert caption.startswith(f"Move 5 of {total}: {game['moves'][5 - len(game['opening']) - 1]['by']}")
    five = page.locator("#board").screenshot(path=str(tmp_path / "five.png"))
    assert pixels(five, RED) > 3 * 200                  # three red discs on screen

    page.keyboard.press("ArrowLeft")
    assert len(page.evaluate(STONES)) == 4
    page.locator("#last").click()
    assert len(page.evaluate(STONES)) == total
    assert page.locator("#result").inner_text() == f"{game['result']}: {game['reason']}"


@pytest.mark.slow
@pytest.mark.hostile
def test_the_page_opens_at_the_standings_and_counts_moves_like_the_replay(page,
                                                                          connect4_page):
    """On load the page stays at the top (the replay below the fold is not scrolled
    to); a replay button brings it into view; the games table counts the moves as
    the replay does, the opening included; the header says how each player searches."""
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto((connect4_page / "tournament.html").as_uri())
    page.wait_for_timeout(200)
    viewer_top = page.evaluate("document.getElementById('viewer').getBoundingClientRect().top")
    assert page.evaluate("window.scrollY") == 0 and viewer_top > 720
    assert "the students' players search 2 deep (bundled: bundled/random, bundled/greedy " \
           "by their own rule)" in page.locator("p.muted").first.inner_text()
    game = helpers.games(connect4_page)[0]
    row = page.locator(f"#replay-{game['game']}").locator("xpath=ancestor::tr")
    total = len(game["opening"]) + len(game["moves"])
    assert row.locator("td.num").nth(1).inner_text() == str(total)
    row.locator("button").click()
    assert page.evaluate("window.scrollY") > 0
    assert page.locator("#caption").inner_text().startswith(f"Move 0 of {total}")


def test_the_header_names_each_bundled_players_depth():
    from types import SimpleNamespace as Player

    from autograder.tournament.run import _clock
    players = [Player(name="bundled/reference-4", bundled=True, depth=4),
               Player(name="bundled/random", bundled=True, depth=None),
               Player(name="ada", bundled=False, depth=2)]
    assert _clock(0.2, 2, players) == ("the students' players search 2 deep (bundled: "
                                       "bundled/reference-4 4 deep; bundled/random by its "
                                       "own rule), each move within 0.2 s")
    assert _clock(1.0, None, players[:1]) == "1 s per move (bundled: bundled/reference-4 4 deep)"


@pytest.mark.slow
@pytest.mark.hostile
def test_standings_plots_and_escaping(page, connect4_page):
    page.goto((connect4_page / "tournament.html").as_uri())
    names = page.locator("#standings-table tbody td:nth-child(2)").all_inner_texts()
    assert set(names) == {"ada_reference", "mallory", "bundled/random", "bundled/greedy"}
    for image in ("#ratings-plot", "#h2h-plot"):
        assert page.evaluate(f"document.querySelector('{image}').naturalWidth") > 300
    assert page.title().startswith("Tournament")            # nothing injected ran
    reasons = page.locator("#games-table td.reason").all_inner_texts()
    assert any(INJECTED in reason for reason in reasons)     # shown as text
    assert page.locator("#games-table b").count() == 0
    mallory = next(g for g in helpers.games(connect4_page) if g["failure"]
                   and g["players"]["x"] == "mallory")
    open_game(page, connect4_page, mallory)
    page.locator("#last").click()
    assert INJECTED in page.locator("#result").inner_text()
    page.fill("#filter", "mallory")
    visible = page.locator("#games-table tbody tr:visible").count()
    assert visible == sum("mallory" in g["players"].values()
                          for g in helpers.games(connect4_page))


@pytest.mark.slow
@pytest.mark.hostile
def test_muehle_replay_draws_the_mill_board(page, muehle_page):
    game = helpers.games(muehle_page)[0]
    open_game(page, muehle_page, game)
    assert page.locator("#board line").count() == 32        # the board's lines
    assert page.locator("#board circle").count() == 24      # its points
    page.locator("#next").click()
    assert page.evaluate(STONES) == ["W"]
    assert pixels(page.locator("#board").screenshot(), WHITE_STONE, 12) > 100
    page.locator("#last").click()
    assert page.locator("#result").inner_text() == f"{game['result']}: {game['reason']}"
    assert "in hand: W" in page.locator("#caption").inner_text()

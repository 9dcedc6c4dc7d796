"""The similarity page as a teacher sees it, in a real headless Chromium.

Uses the kit's shared browser fixture (`page`, tests/browser.py: Debian's chromium
driven by Playwright; .ci/run installs chromium when missing). Checks what is
shown, not only the HTML text: the first ranked pair is a disguised copy, its
side-by-side view is open, a highlighted region is on screen (the topmost element
at its centre is the highlight, and the screenshot's pixels there are the
highlight colour), and student code cannot inject markup.
"""

from __future__ import annotations

import io

import pytest

from autograder.similarity import report, run

from . import batches

HIGHLIGHT = (0xFF, 0xD5, 0x4F)          # mark.shared's background in the template
INJECTED = "</td></tr></table><script>document.title = 'injected'</script><b>bold</b>"


@pytest.fixture(scope="module")
def report_file(tmp_path_factory):
    folder = tmp_path_factory.mktemp("similarity-page")
    origin = batches.build("tictactoe", folder / "batch")
    # A copy whose code tries to end the page's table and run a script.
    source = (batches.CORPUS / "tictactoe" / "chloe" / "tictactoe.py").read_text()
    (folder / "batch" / "zoe").mkdir()
    (folder / "batch" / "zoe" / "tictactoe.py").write_text(
        source + f"\nNOTE = {INJECTED!r}\n")
    origin["zoe"] = "chloe"
    result = run.analyse("tictactoe", folder / "batch", jobs=2)
    path = report.write_html(folder, result)
    return path, origin


FIRST_PAIR = """(() => {
  const row = document.querySelector('#rank-1');
  const cells = row ? [...row.cells].map(c => c.innerText.trim()) : [];
  const details = document.querySelector('details.pair');
  const mark = details ? details.querySelector('mark.shared') : null;
  if (!mark) return {cells, open: details && details.open, mark: null};
  mark.scrollIntoView({block: 'center', inline: 'nearest'});
  const r = mark.getBoundingClientRect();
  const x = r.left + Math.min(r.width / 2, 30), y = r.top + r.height / 2;
  const hit = document.elementFromPoint(x, y);
  return {
    cells, open: details.open,
    summary: details.querySelector('summary').innerText,
    mark: {left: r.left + window.scrollX, top: r.top + window.scrollY,
           width: r.width, height: r.height, text: mark.innerText},
    onTop: hit === mark || mark.contains(hit),
    visible: mark.checkVisibility({checkOpacity: true, checkVisibilityCSS: true}),
    inViewport: r.top >= 0 && r.bottom <= window.innerHeight && r.width > 0,
    background: getComputedStyle(mark).backgroundColor,
  };
})()"""


@pytest.mark.slow
def test_the_page_shows_the_first_copy_highlighted(report_file, page, tmp_path):
    from PIL import Image
    path, origin = report_file
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto(path.as_uri())
    shown = page.evaluate(FIRST_PAIR)
    page.screenshot(path=str(tmp_path / "similarity.png"))
    mark = shown["mark"]
    assert mark, f"no highlighted region in the first pair: {shown}"
    clip = {"x": mark["left"], "y": mark["top"],
            "width": min(mark["width"], 200), "height": mark["height"]}
    pixels = Image.open(io.BytesIO(page.screenshot(clip=clip, full_page=True))).convert("RGB")
    title = page.title()
    scripts = page.evaluate("document.scripts.length")
    zoe_text = page.evaluate("""(() => {
        const pair = [...document.querySelectorAll('details.pair')]
            .find(d => d.querySelector('summary').innerText.includes('zoe'));
        pair.open = true;
        return [...pair.querySelectorAll('td')].some(td => td.innerText.includes(
            "<script>document.title = 'injected'</script><b>bold</b>"));
    })()""")
    groups = page.locator("#groups").is_visible()

    rank, first, second = shown["cells"][:3]
    assert rank == "1"
    assert origin[first] == origin[second] and first != second, \
        f"the first ranked pair {first} / {second} is not a copy"
    assert "-copy-" in first + second or "zoe" in (first, second)
    assert shown["open"] and shown["summary"].startswith(f"1. {first} and {second}")
    assert shown["visible"] and shown["inViewport"] and shown["onTop"], shown
    assert shown["background"] == "rgb(255, 213, 79)"
    total = pixels.width * pixels.height
    close = sum(count for count, colour in pixels.getcolors(total)
                if all(abs(c - h) <= 12 for c, h in zip(colour, HIGHLIGHT)))
    assert close >= 0.4 * total, \
        f"only {close} of {total} pixels of the highlighted region are highlighted"
    assert title.startswith("Similarity report") and scripts == 0
    assert zoe_text, "the student's markup should show as text"
    assert groups


def test_the_page_loads_without_the_network(report_file):
    """Everything is inline: no stylesheet, script, font or image to fetch."""
    path, _ = report_file
    text = path.read_text()
    for needle in ("<link", "<script", "src=", "@import", "url("):
        assert needle not in text

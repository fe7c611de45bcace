"""The HTML report of a large run, written and opened: ``python benchmarks/html_page.py``.

Two pages are made from the invoice records of ``invoices.py`` (a nested vendor, five
scalars, four line items; about 30% of predictions damaged): the page ``jsonmatch score
--format html -o FILE`` writes for N records, and the page the pytest plugin writes
(``jsonmatch_report = report.html``) for a golden suite of N case files. For each, in a fresh
process: the time to write it and the peak memory (max RSS) of the process; then, in headless
Chromium (Playwright, offline, one browser), over ``--loads`` fresh loads of the same file:
first paint (the ``first-contentful-paint`` entry), the DOM's element count once loaded, and
the time to expand a case (a click on its summary until the next frame has been laid out).

Times are printed as min / median / max. First paint is also given as a ratio against a
baseline measured in the same browser and run, load for load: the first paint of a one-line
HTML file (what opening any local page costs this browser on this machine). Memory growth
is the peak at ``--large`` records over the peak at N.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from invoices import records, write_jsonl

ROOT = Path(__file__).resolve().parents[1]

# What the page's cases are found by, in the old page (details elements, every case in the
# markup) and the new one (rows the script makes): the browser part tries both.
EXPAND = """async () => {
  var rows = document.querySelectorAll("#case-rows .case-row, details.case");
  var row = rows[Math.floor(rows.length / 2)];
  var summary = row.querySelector("summary") || row;
  var t0 = performance.now();
  summary.click();
  void document.body.offsetHeight;
  await new Promise(function (r) { requestAnimationFrame(function () { setTimeout(r, 0); }); });
  return performance.now() - t0;
}"""
FIRST_PAINT = """() => {
  var e = performance.getEntriesByName("first-contentful-paint")[0] ||
          performance.getEntriesByType("paint")[0];
  return e ? e.startTime : null;
}"""
LOADED = """() => performance.getEntriesByType("navigation")[0].loadEventEnd"""


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(ROOT), env.get("PYTHONPATH"))))
    for var in ("PYTEST_ADDOPTS", "PYTEST_XDIST_WORKER"):
        env.pop(var, None)
    return env


def _timed_process(cmd: Sequence[str], cwd: Path) -> tuple[float, int]:
    """(wall seconds, peak RSS in kB) of one command run under /usr/bin/time."""
    t0 = time.perf_counter()
    done = subprocess.run(
        ["/usr/bin/time", "-f", "PEAK %M", *cmd],
        cwd=cwd,
        env=_env(),
        capture_output=True,
        text=True,
    )
    took = time.perf_counter() - t0
    peak = next(
        (int(line.split()[1]) for line in done.stderr.splitlines() if line.startswith("PEAK ")),
        None,
    )
    if peak is None or done.returncode not in (0, 1):
        raise RuntimeError(f"{cmd[:4]} failed ({done.returncode}): {done.stderr[-800:]}")
    return took, peak


def score_page(folder: Path, n: int) -> tuple[Path, float, int]:
    """The page of ``jsonmatch score`` over n records: (its path, seconds, peak kB)."""
    gold, pred = write_jsonl(folder, n)
    page = folder / f"score-{n}.html"
    cmd = [sys.executable, "-m", "pytest_jsonmatch", "score", str(gold), str(pred)]
    cmd += ["--metric", "field_f1", "--format", "html", "-o", str(page)]
    took, peak = _timed_process(cmd, folder)
    return page, took, peak


def suite_page(folder: Path, n: int) -> tuple[Path, float, int]:
    """The page the plugin writes for a golden suite of n case files (expected: a gold
    record, actual: its prediction; field_f1): (its path, seconds of the pytest run, peak
    kB)."""
    import yaml

    root = folder / f"suite-{n}"
    cases = root / "cases"
    if not cases.exists():
        cases.mkdir(parents=True)
        gold, pred = records(n)
        for i, (g, p) in enumerate(zip(gold, pred)):
            sub = cases / f"d{i // 1000:02d}"
            sub.mkdir(exist_ok=True)
            doc = {"metric": "field_f1", "threshold": 0.9, "expected": g, "actual": p}
            text = yaml.dump(doc, Dumper=yaml.CSafeDumper, sort_keys=False)
            (sub / f"case_{i:05d}.jsonmatch.yaml").write_text(text)
    page = root / "report.html"
    (root / "pytest.ini").write_text(f"[pytest]\njsonmatch_report = {page.name}\n")
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]
    cmd += ["-p", "no:xdist", "cases"]
    took, peak = _timed_process(cmd, root)
    return page, took, peak


def _spread(values: Sequence[float], unit: str = "", digits: int = 0) -> str:
    low, mid, high = min(values), statistics.median(values), max(values)
    return f"{low:.{digits}f} / {mid:.{digits}f} / {high:.{digits}f}{unit}"


def browse(pages: Sequence[Path], loads: int) -> dict[Path, dict[str, list[float]]]:
    """Each page (and its plain twin, the baseline) loaded ``loads`` times in a fresh tab:
    first paint (ms), elements, expand time (ms)."""
    from playwright.sync_api import sync_playwright

    found: dict[Path, dict[str, list[float]]] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=os.environ.get(
                "JSONMATCH_CHROMIUM", "/usr/bin/chromium-headless-shell"
            ),
            args=["--no-sandbox", "--disable-gpu", "--no-first-run"],
        )
        context = browser.new_context(offline=True, viewport={"width": 1280, "height": 900})
        for path in pages:
            plain = path.with_suffix(".plain.html")
            plain.write_text('<!DOCTYPE html><html lang="en"><body><p>a page</p></body></html>\n')
            figures: dict[str, list[float]] = {
                "paint": [],
                "plain": [],
                "load": [],
                "nodes": [],
                "expand": [],
            }
            for _ in range(loads):
                for which, target in (("plain", plain), ("paint", path)):
                    tab = context.new_page()
                    tab.goto(target.as_uri())
                    tab.wait_for_load_state("load")
                    tab.wait_for_timeout(50)
                    figures[which].append(float(tab.evaluate(FIRST_PAINT) or "nan"))
                    if which == "paint":
                        figures["load"].append(tab.evaluate(LOADED))
                        figures["nodes"].append(
                            tab.evaluate("document.getElementsByTagName('*').length")
                        )
                        figures["expand"].append(tab.evaluate(EXPAND))
                    tab.close()
            found[path] = figures
        browser.close()
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--large", type=int, default=100_000, help="0: no memory-growth row")
    parser.add_argument("--loads", type=int, default=3)
    parser.add_argument("--no-suite", action="store_true", help="leave the plugin's page out")
    parser.add_argument("--keep", help="a folder to keep the pages in")
    parser.add_argument(
        "--page",
        action="append",
        default=[],
        help="only open this page in the browser (repeat to compare pages in one run)",
    )
    args = parser.parse_args(argv)
    if args.page:
        pages = [Path(p) for p in args.page]
        made = [(str(p), p, 0.0, 0) for p in pages]
        _print(_browser_rows(made, browse(pages, args.loads)))
        return 0
    folder = Path(args.keep or tempfile.mkdtemp(prefix="jm-html-"))
    folder.mkdir(parents=True, exist_ok=True)
    made: list[tuple[str, Path, float, int]] = []
    page, took, peak = score_page(folder, args.records)
    made.append((f"jsonmatch score, {args.records} records", page, took, peak))
    print(f"{made[-1][0]}: written in {took:.2f} s, peak {peak / 1024:.0f} MB", flush=True)
    if not args.no_suite:
        page, took, peak = suite_page(folder, args.records)
        made.append((f"plugin, {args.records}-case suite", page, took, peak))
        print(f"{made[-1][0]}: written in {took:.2f} s, peak {peak / 1024:.0f} MB", flush=True)
    rows = _browser_rows(made, browse([m[1] for m in made], args.loads))
    if args.large:
        _, _, big = score_page(folder, args.large)
        small = made[0][3]
        rows.append(
            (
                f"jsonmatch score peak memory, {args.large} / {args.records} records",
                f"{big / 1024:.0f} MB / {small / 1024:.0f} MB = {big / small:.3f}",
            )
        )
    _print(rows)
    print(json.dumps({"folder": str(folder)}))
    return 0


def _print(rows: list[tuple[str, str]]) -> None:
    width = max(len(r[0]) for r in rows)
    for label, value in rows:
        print(f"{label:<{width}}  {value}")


def _browser_rows(
    made: list[tuple[str, Path, float, int]], figures: dict[Path, dict[str, list[float]]]
) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    for name, page, took, peak in made:
        f = figures[page]
        ratio = [a / b for a, b in zip(f["paint"], f["plain"])]
        if took:
            rows.append((f"{name}: write", f"{took:.2f} s, peak {peak / 1024:.0f} MB"))
        rows += [
            (f"{name}: size", f"{page.stat().st_size / 1e6:.2f} MB"),
            (f"{name}: first paint (ms)", _spread(f["paint"])),
            (f"{name}: first paint / a one-line page's", _spread(ratio, "x", 2)),
            (f"{name}: loaded, script run (ms)", _spread(f["load"])),
            (f"{name}: elements", _spread(f["nodes"])),
            (f"{name}: expand a case (ms)", _spread(f["expand"], "", 1)),
        ]
    return rows


if __name__ == "__main__":
    sys.exit(main())

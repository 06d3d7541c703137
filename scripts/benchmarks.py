#!/usr/bin/env python3
"""The benchmark record: results/benchmarks.csv (every run) and the table of
current figures in results/BENCHMARKS.md (rendered from the CSV).

  scripts/benchmarks.py render
      rewrite the table between the markers of results/BENCHMARKS.md from the
      rows whose `current` column is set, and draw the standard solve's time
      over every run (results/benchmarks-solve-kpe.svg)
  scripts/benchmarks.py append-divan GROUP --machine M [--note N] < divan output
      one run per benchmark of `cargo bench --bench GROUP`; each becomes the
      current figure of its benchmark (its median)
  scripts/benchmarks.py append-perft --threads T --machine M < `sow perft` output
  scripts/benchmarks.py append-solve --threads T --machine M SOLVE_OUT TIME_OUT
      a `/usr/bin/time -v sow --threads T solve kpe` run (its output and
      /usr/bin/time's); with --current it becomes the current figure

Columns are documented at the top of results/BENCHMARKS.md. Standard library only.
"""
import argparse
import csv
import datetime
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CSV = ROOT / "results" / "benchmarks.csv"
PLOT = ROOT / "results" / "benchmarks-solve-kpe.svg"
PAGE = ROOT / "results" / "BENCHMARKS.md"
COLUMNS = ["run", "date", "time_utc", "benchmark", "figure", "value", "value_high", "unit",
           "commit", "machine", "command", "note", "current"]
BEGIN, END = "<!-- current-figures:begin -->", "<!-- current-figures:end -->"

# Labels and order of the current figures; a key not listed comes last, labelled by its benchmark.
LABELS = [
    ("solve-kpe", "Standard Kpé solve, 2 threads (`sow solve kpe`)"),
    ("solve-kpe-1-thread", "Standard Kpé solve, 1 thread"),
    ("solve-kpe-steps", "Standard Kpé solve: time by phase, 2 threads"),
    ("db-disk", "Standard Kpé database on disk (format 3)"),
    ("stats-kpe-cold", "`sow stats kpe`, files not in the page cache"),
    ("eval-kpe-cold", "`sow eval kpe`, files not in the page cache (start, 147-move line)"),
    ("eval-kpe-warm", "`sow eval kpe`, warm"),
    ("solver/probe_db_standard", "Warm database probe: 1,000 positions a sample"),
    ("solve-kpe-4x7", "kpe:4x7 solve (layers of 0-48 stones reused from kpe)"),
    ("solve-kpe-5x4", "kpe:5x4 solve, region out of core (layers built before)"),
    ("solve-kpe-6x2", "kpe:6x2 solve, resumed (peak only: shared, niced, stopped)"),
    ("solve-kpe-7x1-out-of-core", "kpe:7x1 region out of core (layers reused)"),
    ("kiothi-tables-14", "Kiothi endgame tables: the 14-warrior count"),
    ("kiothi-tables-disk", "Kiothi endgame tables of 0-14 warriors on disk"),
    ("eval-kiothi-tables", "Engine search through the tables (game 3, 16 plies before the end)"),
    ("prover-1-thread", "Kiothi prover, 1 thread (game 3, 18 plies before the end)"),
    ("prover-2-threads", "Kiothi prover, 2 threads (game 3, 22 plies before the end)"),
    ("perft-kpe-13", "`sow perft kpe 13`, 2 threads"),
    ("scan-kiothi", "Kiothi: every first move scanned (300,450,150), 2 threads"),
    ("scan-kiothi-1-thread", "Kiothi: every first move scanned, 1 thread"),
]


def read_rows():
    with open(CSV, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    if rows and list(rows[0].keys()) != COLUMNS:
        sys.exit(f"{CSV}: unexpected columns {list(rows[0].keys())}")
    return rows


def write_rows(rows):
    with open(CSV, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


def slug(key):
    return re.sub(r"[^a-z0-9]+", "-", key.lower()).strip("-")


def number(text):
    """Thousands separators for long integers; other values exactly as recorded."""
    if re.fullmatch(r"-?\d{5,}", text):
        return f"{int(text):,}"
    return text


def value_text(row):
    v = number(row["value"])
    if row["value_high"]:
        v += "-" + number(row["value_high"])
    unit = {"count": "", "depth": "", "nps": "", "x": "×"}.get(row["unit"], " " + row["unit"])
    return f"{row['figure']} {v}{unit}".rstrip()


def cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def render():
    rows = read_rows()
    groups = {}
    for r in rows:
        if r["current"]:
            groups.setdefault(r["current"], []).append(r)
    order = [k for k, _ in LABELS if k in groups] + [k for k in groups if k not in dict(LABELS)]
    labels = dict(LABELS)
    out = ["| figure | value | command | machine | date (UTC) | runs |", "|---|---|---|---|---|---|"]
    for key in order:
        g = groups[key]
        runs = list(dict.fromkeys(r["run"] for r in g))
        per_run = []
        for run in runs:
            per_run.append(", ".join(value_text(r) for r in g if r["run"] == run))
        value = "; ".join(per_run)
        notes = list(dict.fromkeys(r["note"] for r in g if r["note"]))
        if notes:
            value += " (" + "; ".join(notes) + ")"
        commands = list(dict.fromkeys(r["command"] for r in g))
        machines = list(dict.fromkeys(r["machine"] for r in g))
        dates = list(dict.fromkeys((r["date"] + " " + r["time_utc"]).strip() for r in g))
        commits = list(dict.fromkeys(r["commit"] for r in g if r["commit"]))
        label = labels.get(key, f"`{g[0]['benchmark']}` ({g[0]['figure']})")
        out.append("| " + " | ".join(cell(x) for x in [
            f'<a id="{slug(key)}"></a>{label}',
            value,
            "; ".join(f"`{c}`" if c else "(not recorded)" for c in commands),
            "; ".join(machines),
            "; ".join(dates) + (" at " + ", ".join(commits) if commits else ""),
            ", ".join(runs),
        ]) + " |")
    page = PAGE.read_text(encoding="utf-8")
    if BEGIN not in page or END not in page:
        sys.exit(f"{PAGE}: the markers {BEGIN} and {END} are missing")
    head, rest = page.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    PAGE.write_text(head + BEGIN + "\n" + "\n".join(out) + "\n" + END + tail, encoding="utf-8")
    print(f"wrote {len(order)} current figures to {PAGE.relative_to(ROOT)}")
    plot(rows)


def plot(rows):
    """Every two-thread run of the standard solve: its wall time (else the
    solver's own time) against when it ran, on a log scale."""
    import math
    runs = {}
    for r in rows:
        if r["benchmark"] != "solve kpe" or "--threads 2" not in r["command"] or r["value_high"]:
            continue
        if r["figure"] not in ("wall", "time"):
            continue
        t = r["time_utc"][:5] or "12:00"
        when = datetime.datetime.fromisoformat(f"{r['date']}T{t}")
        got = runs.setdefault(r["run"], {"when": when})
        got[r["figure"]] = float(r["value"]) * (0.001 if r["unit"] == "ms" else 1)
    points = sorted((v["when"], v.get("wall", v.get("time"))) for v in runs.values())
    if not points:
        return
    w, h, left, right, top, bottom = 720, 360, 60, 20, 40, 50
    t0, t1 = points[0][0], points[-1][0]
    span = max((t1 - t0).total_seconds(), 1)
    lo, hi = math.log10(50), math.log10(2000)
    x = lambda t: left + (w - left - right) * (t - t0).total_seconds() / span
    y = lambda v: top + (h - top - bottom) * (hi - math.log10(min(max(v, 50), 2000))) / (hi - lo)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<text x="{left}" y="22" font-size="14">Standard Kpé solve on 2 threads: every run of results/benchmarks.csv '
           f'({len(points)}), seconds (log scale)</text>']
    for v in (50, 100, 200, 500, 1000, 2000):
        out.append(f'<line x1="{left}" x2="{w - right}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v}</text>')
    day = datetime.datetime.combine(t0.date(), datetime.time())
    while day <= t1:
        if day >= t0:
            out.append(f'<line x1="{x(day):.1f}" x2="{x(day):.1f}" y1="{top}" y2="{h - bottom}" stroke="#eee"/>')
            out.append(f'<text x="{x(day):.1f}" y="{h - bottom + 16}" text-anchor="middle">{day:%m-%d}</text>')
        day += datetime.timedelta(days=1)
    for t, v in points:
        out.append(f'<circle cx="{x(t):.1f}" cy="{y(v):.1f}" r="3" fill="#2a6fb0" fill-opacity="0.7"/>')
    out.append(f'<text x="{left}" y="{h - 12}" fill="#555">date (UTC); runs under load, of changes not kept, '
               'and of binaries compared are all drawn</text>')
    out.append("</svg>")
    PLOT.write_text("\n".join(out) + "\n", encoding="utf-8")
    print(f"wrote {PLOT.relative_to(ROOT)} ({len(points)} runs)")


def now():
    t = datetime.datetime.now(datetime.timezone.utc)
    return t.strftime("%Y-%m-%d"), t.strftime("%H:%M")


def commit():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, check=True,
                              capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def append(new_runs, current=None):
    """new_runs: list of (benchmark, command, note, [(figure, value, unit)], current_key, current_figures)."""
    rows = read_rows()
    date, time_utc = now()
    taken = {r["run"] for r in rows}
    seq = sum(1 for r in {r["run"] for r in rows if r["date"] == date})
    rev = commit()
    for benchmark, command, note, figures, key, key_figures in new_runs:
        seq += 1
        run = f"{date}#{seq}"
        while run in taken:
            seq += 1
            run = f"{date}#{seq}"
        taken.add(run)
        if key:
            for r in rows:
                if r["current"] == key:
                    r["current"] = ""
        for figure, value, unit in figures:
            rows.append({"run": run, "date": date, "time_utc": time_utc, "benchmark": benchmark,
                         "figure": figure, "value": value, "value_high": "", "unit": unit,
                         "commit": rev, "machine": ARGS.machine, "command": command, "note": note,
                         "current": key if key and (key_figures is None or figure in key_figures) else ""})
    write_rows(rows)
    print(f"appended {len(new_runs)} run(s) to {CSV.relative_to(ROOT)}")


DIVAN_CELL = re.compile(r"^\s*([0-9.]+)\s*(ns|µs|ms|s)\s*$")


def parse_divan(text, group):
    """Leaf benchmarks of a divan tree: (path, fastest, slowest, median, mean, samples)."""
    out, stack = [], []
    for line in text.splitlines():
        line = re.sub(r"\x1b\[[0-9;]*m", "", line)
        m = re.match(r"^([│ ]*)([├╰])─ (\S+)(.*)$", line)
        if not m:
            continue
        depth = len(m.group(1)) // 3
        stack[depth:] = [m.group(3)]
        cells = [c for c in m.group(4).split("│")]
        times = [DIVAN_CELL.match(c) for c in cells[:4]]
        if len(cells) >= 5 and all(times):
            figs = [(n, t.group(1), t.group(2)) for n, t in zip(("fastest", "slowest", "median", "mean"), times)]
            figs.append(("samples", cells[4].strip(), "count"))
            out.append(("/".join([group] + stack), figs))
    return out


def cmd_append_divan():
    benches = parse_divan(sys.stdin.read(), ARGS.group)
    if not benches:
        sys.exit("no divan benchmark lines on standard input")
    append([(path, f"cargo bench --bench {ARGS.group}", ARGS.note, figs, path, {"median"})
            for path, figs in benches])


def cmd_append_perft():
    text = sys.stdin.read()
    found = {k: re.search(rf"^{k}\s+([0-9.]+)", text, re.M) for k in ("depth", "nodes", "time", "nps")}
    if not all(found.values()):
        sys.exit("not the output of `sow perft`")
    depth = found["depth"].group(1)
    key = f"perft-kpe-{depth}" if ARGS.threads == "2" else None
    append([(f"perft kpe {depth} (command line)", f"sow --threads {ARGS.threads} perft kpe {depth}", ARGS.note,
             [("nodes", found["nodes"].group(1), "count"), ("time", found["time"].group(1), "s"),
              ("nps", found["nps"].group(1), "nps")], key, None)])


def cmd_append_solve():
    out = Path(ARGS.solve_out).read_text(encoding="utf-8")
    tv = Path(ARGS.time_out).read_text(encoding="utf-8")
    m = re.search(r"^time ([0-9.]+) s \(endgame layers ([0-9.]+) s: exits ([0-9.]+) s, thresholds ([0-9.]+) s, "
                  r"endings ([0-9.]+) s; opening phase: exploration ([0-9.]+) s, solution ([0-9.]+) s\), "
                  r"peak memory ([0-9]+) MiB", out, re.M)
    if not m:
        sys.exit(f"{ARGS.solve_out}: no time line of `sow solve kpe`")
    figs = [(n, v, "s") for n, v in zip(("time", "layers", "exits", "thresholds", "endings", "exploration",
                                          "region_solution"), m.groups()[:7])]
    figs.append(("peak_memory", m.group(8), "MiB"))
    for name, pattern in (("user", r"User time \(seconds\): ([0-9.]+)"), ("sys", r"System time \(seconds\): ([0-9.]+)"),
                          ("max_rss", r"Maximum resident set size \(kbytes\): ([0-9]+)")):
        t = re.search(pattern, tv)
        if t:
            figs.append((name, t.group(1), "KB" if name == "max_rss" else "s"))
    w = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([0-9.]+)", tv)
    if w:
        h, mnt, sec = w.groups()
        wall = int(h or 0) * 3600 + int(mnt) * 60 + float(sec)
        figs.append(("wall", f"{wall:.2f}", "s"))
    key = None
    if ARGS.current:
        key = "solve-kpe" if ARGS.threads == "2" else f"solve-kpe-{ARGS.threads}-thread"
    append([("solve kpe", f"/usr/bin/time -v sow --threads {ARGS.threads} solve kpe --db <fresh dir>", ARGS.note,
             figs, key, None)])


def main():
    global ARGS
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("render")
    for name in ("append-divan", "append-perft", "append-solve"):
        s = sub.add_parser(name)
        s.add_argument("--machine", required=True, help='e.g. "2 cores AMD EPYC, 23 GiB"')
        s.add_argument("--note", default="scripts/benchmarks.sh run")
        if name == "append-divan":
            s.add_argument("group")
        else:
            s.add_argument("--threads", required=True)
        if name == "append-solve":
            s.add_argument("--current", action="store_true")
            s.add_argument("solve_out")
            s.add_argument("time_out")
    ARGS = p.parse_args()
    {"render": render, "append-divan": cmd_append_divan, "append-perft": cmd_append_perft,
     "append-solve": cmd_append_solve}[ARGS.cmd]()


if __name__ == "__main__":
    main()

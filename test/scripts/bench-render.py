#!/usr/bin/env python3
"""test/scripts/bench-render.py — renders docs/benchmarks.md (and the
README's one table, from the newest DuckDB bench, and its summary of the
newest external bench) from the
benchmark results kept as data in docs/bench/ (bench-record.sh, and
bench-tpch.sh's own file): for each bench its newest file by the date in
its header, as the header's facts (command, date, commit, machine,
PostgreSQL, settings) and a table of its rows; then the chart
(bench-chart.sh) from the newest ORDER BY and gpu_sort files.  What the
page says comes only from those files.  Run by `make bench-docs`."""
import csv
import glob
import os
import re
import subprocess
import sys

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
BENCH_DIR = os.path.join(TOP, "docs", "bench")
PAGE = os.path.join(TOP, "docs", "benchmarks.md")

# (file name prefix, title, what it measures, columns left out of the table)
BENCHES = [
    ("orderby", "ORDER BY through the custom scan",
     "`SELECT * FROM bench ORDER BY …`: the native Sort node against BitonicSort, "
     "node time and whole query, in the same run.", []),
    ("duckdb", "Against DuckDB",
     "The same queries in PostgreSQL (native, ours) and in DuckDB on the same data.", []),
    ("nodes", "Below other operators",
     "Window functions, DISTINCT, GROUP BY, a merge join and INTERSECT, module on and off.", []),
    ("external", "Past work_mem",
     "ORDER BY, a window and DISTINCT at work_mem 4MB, 64MB and 256MB: the native Sort's best of "
     "serial and 2 workers against BitonicSort's external sort, and BitonicSort in memory; "
     "then native serial and ours as the first sort of a new session.", []),
    ("tpch", "TPC-H",
     "The 22 TPC-H queries on generated data, module off and on in alternated rounds, "
     "results compared.", ["native_ms", "ours_ms", "result_md5"]),
    ("parallel", "Parallel workers",
     "ORDER BY with 0, 1 and 2 parallel workers, native against ours.", []),
    ("sharded", "Sharded over postgres_fdw",
     "ORDER BY over two postgres_fdw shards against one cluster.", []),
    ("gpu_sort", "gpu_sort on arrays",
     "`gpu_sort(a)` against `ARRAY(SELECT x FROM unnest(a) x ORDER BY x)`.", []),
    ("gpu_sql", "SQL on a GPU",
     "ORDER BY and gpu_sort with device = gpu against device = cpu (a GPU machine).", []),
]


def read_result(path):
    """The header facts (dict) and the rows (list of lists) of one file."""
    facts, lines = {}, []
    with open(path, newline="") as f:
        for line in f:
            if line.startswith("#"):
                key, _, value = line[1:].strip().partition(":")
                if value:
                    facts[key.strip()] = value.strip()
            elif line.strip():
                lines.append(line)
    delimiter = "\t" if path.endswith(".tsv") else ","
    return facts, list(csv.reader(lines, delimiter=delimiter))


def newest(prefix):
    """The newest result file of a bench (by its header's date), or None."""
    files = [p for p in glob.glob(os.path.join(BENCH_DIR, prefix + "-*"))
             if p.endswith((".csv", ".tsv"))]
    dated = [(read_result(p)[0].get("date", ""), p) for p in files]
    return max(dated)[1] if dated else None


def table(rows, drop):
    """A markdown table of rows (the first is the header), without the columns in drop."""
    keep = [i for i, name in enumerate(rows[0]) if name not in drop]
    out = ["| " + " | ".join(rows[0][i] for i in keep) + " |",
           "|" + "---|" * len(keep)]
    for row in rows[1:]:
        out.append("| " + " | ".join(row[i].replace("|", "\\|") if i < len(row) else ""
                                      for i in keep) + " |")
    return out


README = os.path.join(TOP, "README.md")
README_BEGIN = "<!-- rendered by make bench-docs from the newest docs/bench/duckdb-*.csv; not edited by hand -->"
README_END = "<!-- end of the rendered table -->"


def newest_rows(prefix):
    """The newest file of a bench: its path, header facts, and rows with a column index; None if none."""
    path = newest(prefix)
    if path is None:
        return None
    facts, rows = read_result(path)
    return path, facts, rows, {name: i for i, name in enumerate(rows[0])}


def row_count(n):
    """A count of rows as the README gives it: 10M for whole millions."""
    return "%dM" % (n // 1000000) if n % 1000000 == 0 else str(n)


def where_from(path, facts, settings):
    """A result's command, date, commit, machine and PostgreSQL, then settings, for a README paragraph."""
    return "`%s` (%s, commit %s; %s; PostgreSQL %s; %s" % (
        facts.get("command", "?"), facts.get("date", "?"), facts.get("commit", "?"),
        facts.get("machine", "?"), facts.get("postgresql", "?").split(" ")[0], settings)


def readme_table():
    """The README's one table, from the newest DuckDB bench: whole queries, native, ours and DuckDB."""
    found = newest_rows("duckdb")
    if found is None:
        return None
    path, facts, rows, col = found
    out = [where_from(path, facts, facts.get("settings", "")) +
           "): whole queries in ms, each side's best run; "
           "native is PostgreSQL's own plan with 2 parallel workers allowed, DuckDB runs in memory on "
           "all cores.  Above 1, ours is faster; data: [%s](docs/bench/%s)."
           % (os.path.basename(path), os.path.basename(path)), "",
           "| query | rows | native | with the module | DuckDB | native / ours | DuckDB / ours |",
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows[1:]:
        native, ours, duck = (float(r[col[c]]) for c in ("native_ms", "ours_ms", "duckdb_ms"))
        n = int(r[col["n"]])
        out.append("| %s | %s | %.0f | %.0f | %.0f | %.1f | %.2f |"
                   % (r[col["query"]].replace("|", "\\|"),
                      row_count(n),
                      native, ours, duck, native / ours, duck / ours))
    return out


README_EXTERNAL_BEGIN = ("<!-- rendered by make bench-docs from the newest docs/bench/external-*.csv; "
                         "not edited by hand -->")
README_EXTERNAL_END = "<!-- end of the rendered summary -->"


def ratio_range(rows, col, column, labels, mems=None):
    """The smallest and largest value of a column over the rows of the given queries (and work_mem), as "a–b"."""
    values = [float(r[col[column]]) for r in rows if r[col["query"]] in labels and r[col[column]]
              and (mems is None or r[col["work_mem"]] in mems)]
    if not values:
        return "?"
    return "%.2f–%.2f" % (min(values), max(values))


def readme_external():
    """The README's summary of the newest external bench: each target's figures, from its rows."""
    found = newest_rows("external")
    if found is None:
        return None
    path, facts, rows, col = found
    rows = rows[1:]
    select_star = ("int8", "float8", "text C", "int4, float8")
    others = ("row_number()", "DISTINCT int8")
    mems = sorted({r[col["work_mem"]] for r in rows}, key=lambda m: int(m.rstrip("MGkB") or 0))
    nrows = re.search(r"rows=(\d+)", facts.get("settings", ""))
    nrows = row_count(int(nrows.group(1))) if nrows else "?"
    out = ["Past `work_mem`, " +
           where_from(path, facts, "%s rows of the table above at `work_mem` %s" % (nrows, ", ".join(mems))) +
           "; data: [%s](docs/bench/%s)): native's best of serial and 2 workers over ours:"
           % (os.path.basename(path), os.path.basename(path)),
           "- `SELECT * … ORDER BY` one key or two: %s times at 4 MB and 64 MB (target: 4), %s at "
           "256 MB (target: 3); ours past `work_mem` over ours in memory: %s (target: at most 2)."
           % (ratio_range(rows, col, "native_best_over_ours", select_star, ("4MB", "64MB")),
              ratio_range(rows, col, "native_best_over_ours", select_star, ("256MB",)),
              ratio_range(rows, col, "ours_over_in_memory", select_star)),
           "- `row_number()` and `SELECT DISTINCT`: %s times; over ours in memory: %s."
           % (ratio_range(rows, col, "native_best_over_ours", others),
              ratio_range(rows, col, "ours_over_in_memory", others))]
    if "ours_first_session_ms" in col:
        firsts = [float(r[col["native_serial_first_session_ms"]]) / float(r[col["ours_first_session_ms"]])
                  for r in rows if r[col["ours_first_session_ms"]] and r[col["native_serial_first_session_ms"]]]
        if firsts:
            out.append("- As the first sort of a new session (a new connection, a parallel worker), "
                       "native serial over ours: %.2f–%.2f times." % (min(firsts), max(firsts)))
    out.append("- What stands between the `SELECT *` targets and these figures: "
               "[docs/memory.md](docs/memory.md#the-external-sort).")
    return out


def render_between(begin, end, lines, what):
    """Put lines between the README's markers begin and end (left alone where they or the data are missing)."""
    with open(README) as f:
        text = f.read()
    if lines is None or begin not in text or end not in text:
        return
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    with open(README, "w") as f:
        f.write(head + begin + "\n" + "\n".join(lines) + "\n" + end + tail)
    print("wrote", what, "of", os.path.relpath(README, TOP))


def render_readme():
    """The README's table (the DuckDB bench) and its summary of the external bench."""
    render_between(README_BEGIN, README_END, readme_table(), "the table")
    render_between(README_EXTERNAL_BEGIN, README_EXTERNAL_END, readme_external(), "the external summary")


def main():
    header = ["# Benchmarks", "",
            "Rendered by `make bench-docs` (test/scripts/bench-render.py) from the result",
            "files in [docs/bench/](bench/), the newest of each benchmark; a benchmark",
            "run writes a new file.  Times are in ms.  In the TPC-H table a ratio is ours",
            "over native (below 1: faster with the module); elsewhere native's (or DuckDB's)",
            "time over ours (above 1: faster with the module).  Not edited by hand.", ""]
    page = list(header)
    chart = {}
    for prefix, title, what, drop in BENCHES:
        path = newest(prefix)
        if path is None:
            continue
        facts, rows = read_result(path)
        if prefix in ("orderby", "gpu_sort"):
            chart[prefix] = path
        page += ["## " + title, "", what, ""]
        for key in ("command", "date", "commit", "machine", "postgresql", "settings", "times"):
            if key in facts:
                page.append("- %s: %s" % (key, facts[key]))
        page += ["- data: [%s](bench/%s)" % (os.path.basename(path), os.path.basename(path)), ""]
        page += table(rows, drop) + [""]
    if chart:
        env = dict(os.environ)
        env["BENCH_CHART_ORDERBY"] = chart.get("orderby", "")
        env["BENCH_CHART_GPU_SORT"] = chart.get("gpu_sort", "")
        subprocess.run([os.path.join(TOP, "test", "scripts", "bench-chart.sh")], env=env, check=False)
        page[len(header):len(header)] = ["![native time over ours](bench-ratios.png)", ""]
    with open(PAGE, "w") as f:
        f.write("\n".join(page))
    print("wrote", os.path.relpath(PAGE, TOP))
    render_readme()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""test/scripts/bench-render.py — renders docs/benchmarks.md (and the
README's one table, from the newest DuckDB bench) from the
benchmark results kept as data in docs/bench/ (bench-record.sh, and
bench-tpch.sh's own file): for each bench its newest file by the date in
its header, as the header's facts (command, date, commit, machine,
PostgreSQL, settings) and a table of its rows; then the chart
(bench-chart.sh) from the newest ORDER BY and gpu_sort files.  What the
page says comes only from those files.  Run by `make bench-docs`."""
import csv
import glob
import os
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
     "serial and 2 workers against BitonicSort's external sort, and BitonicSort in memory.", []),
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


def readme_table():
    """The README's one table, from the newest DuckDB bench: whole queries, native, ours and DuckDB."""
    path = newest("duckdb")
    if path is None:
        return None
    facts, rows = read_result(path)
    col = {name: i for i, name in enumerate(rows[0])}
    out = ["`%s` (%s, commit %s; %s; PostgreSQL %s; %s): whole queries in ms, each side's best run; "
           "native is PostgreSQL's own plan with 2 parallel workers allowed, DuckDB runs in memory on "
           "all cores.  Above 1, ours is faster; data: [%s](docs/bench/%s)."
           % (facts.get("command", "?"), facts.get("date", "?"), facts.get("commit", "?"),
              facts.get("machine", "?"), facts.get("postgresql", "?").split(" ")[0],
              facts.get("settings", ""), os.path.basename(path), os.path.basename(path)), "",
           "| query | rows | native | with the module | DuckDB | native / ours | DuckDB / ours |",
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows[1:]:
        native, ours, duck = (float(r[col[c]]) for c in ("native_ms", "ours_ms", "duckdb_ms"))
        n = int(r[col["n"]])
        out.append("| %s | %s | %.0f | %.0f | %.0f | %.1f | %.2f |"
                   % (r[col["query"]].replace("|", "\\|"),
                      "%dM" % (n // 1000000) if n % 1000000 == 0 else str(n),
                      native, ours, duck, native / ours, duck / ours))
    return out


def render_readme():
    """Put the README's table between its markers (left alone where the markers or data are missing)."""
    lines = readme_table()
    with open(README) as f:
        text = f.read()
    if lines is None or README_BEGIN not in text or README_END not in text:
        return
    head, rest = text.split(README_BEGIN, 1)
    _, tail = rest.split(README_END, 1)
    with open(README, "w") as f:
        f.write(head + README_BEGIN + "\n" + "\n".join(lines) + "\n" + README_END + tail)
    print("wrote the table of", os.path.relpath(README, TOP))


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

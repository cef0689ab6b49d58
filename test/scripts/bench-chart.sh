#!/usr/bin/env bash
# test/scripts/bench-chart.sh — draws the ratios measured by the benchmark
# scripts (tmp/bench/*.csv) into docs/bench-ratios.png with gnuplot:
# ORDER BY (node and whole-query ratio, native / BitonicSort) and gpu_sort
# (native / gpu_sort per algorithm).  Installs gnuplot-nox as root.
set -u
cd "$(dirname "$0")/../.."
if ! command -v gnuplot >/dev/null; then
	if [ "$(id -u)" -eq 0 ]; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q gnuplot-nox >/dev/null
	else
		echo "No chart: run as root: apt-get install -y gnuplot-nox" >&2
		exit 0
	fi
fi
# the files to draw: bench-render.py names the newest kept ones (docs/bench)
ob=${BENCH_CHART_ORDERBY-tmp/bench/orderby.csv}
gs=${BENCH_CHART_GPU_SORT-tmp/bench/gpu_sort.csv}
plots=0
[ -n "$ob" ] && [ -f "$ob" ] && plots=$((plots + 1))
[ -n "$gs" ] && [ -f "$gs" ] && plots=$((plots + 1))
[ "$plots" -eq 0 ] && { echo "No chart: no benchmark results in tmp/bench/" >&2; exit 0; }

{
	echo "set terminal png size 1200,$((420 * plots)) font ',10' noenhanced"
	echo "set output 'docs/bench-ratios.png'"
	echo "set datafile separator ','"
	echo "set style data histograms"
	echo "set style histogram clustered gap 1"
	echo "set style fill solid 0.8 border -1"
	echo "set key above"
	echo "set grid ytics"
	echo "set xtics rotate by -35 left"
	echo "set ylabel 'native time / our time (higher is better)'"
	echo "set multiplot layout $plots,1"
	if [ -f "$ob" ]; then
		echo "set title 'ORDER BY: native Sort / BitonicSort (CPU, auto)'"
		echo "plot '$ob' every ::1 using 7:xtic(sprintf('%s %dM', strcol(1), column(2)/1000000)) title 'sort node self time, ordinary memory', '' every ::1 using 10 title 'whole query, ordinary memory', '' every ::1 using 12 title 'node self time, huge page pool', '' every ::1 using 19 title 'node self time, nothing kept', 1 with lines lc rgb 'black' notitle"
	fi
	if [ -f "$gs" ]; then
		echo "set title 'gpu_sort(a) vs ARRAY(SELECT x FROM unnest(a) x ORDER BY x) (CPU)'"
		echo "plot '$gs' every ::1 using (column(5)/column(4)):xtic(sprintf('%s %dM %s', strcol(1), column(2)/1000000, strcol(3))) title 'native / gpu_sort', 1 with lines lc rgb 'black' notitle"
	fi
	echo "unset multiplot"
} | gnuplot && echo "chart: docs/bench-ratios.png"

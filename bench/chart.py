"""Draws scripts/bench's results as one SVG with gnuplot (Debian's gnuplot-nox): for each case,
requests per second and p99 against connections, keeper and the baseline side by side (medians of
the repeats). Usage: chart.py RESULTS_JSON OUTPUT_SVG."""
import json
import os
import statistics
import subprocess
import sys
import tempfile

CASES = ["R1", "R1g", "R2", "R3", "R4"]


def medians(results):
    """{case: [(conns, keeper_rps, base_rps, keeper_p99, base_p99)]} from results.json."""
    out = {}
    for key, runs in results.items():
        case, conns = key.split("@")
        row = [int(conns)]
        for field in ("rps", "p99"):
            for target in ("keeper", "baseline"):
                row.append(statistics.median(r[field] for r in runs[target]))
        out.setdefault(case, []).append((row[0], row[1], row[2], row[3], row[4]))
    return {c: sorted(rows) for c, rows in out.items()}


def main(results_path, svg_path):
    data = medians(json.load(open(results_path)))
    cases = [c for c in CASES if c in data]
    with tempfile.TemporaryDirectory() as work:
        script = [f'set terminal svg size {300 * len(cases)},560 dynamic font "sans,10"',
                  f'set output "{svg_path}"',
                  f"set multiplot layout 2,{len(cases)} title 'keeper (solid) and the baseline (dashed): median of the repeats, 2 cores'",
                  "set logscale x 2", "set xlabel 'connections'", "set key top left", "set grid"]
        for row, (label, keeper_col, base_col) in enumerate((("requests/s", 2, 3), ("p99 ms", 4, 5))):
            for case in cases:
                path = os.path.join(work, f"{case}.dat")
                with open(path, "w") as f:
                    for r in data[case]:
                        f.write(" ".join(str(v) for v in r) + "\n")
                script += [f"set title '{case}'", f"set ylabel '{label}'", "set yrange [0:*]",
                           f"plot '{path}' using 1:{keeper_col} with linespoints lw 2 lc rgb '#1f77b4' title 'keeper', "
                           f"'' using 1:{base_col} with linespoints lw 2 dt 2 lc rgb '#ff7f0e' title 'baseline'"]
        script.append("unset multiplot")
        subprocess.run(["gnuplot"], input="\n".join(script), text=True, check=True)


if __name__ == "__main__":
    main(*sys.argv[1:3])

#!/usr/bin/env bash
# The CPU time of MPI_Init, the first collectives and MPI_Finalize per rank,
# without libacct (off), with the loader alone (pass: ACCT_DISABLE=1) and
# with ACCT active on a rules file (on, with ACCT_REPORT as acct-apps runs
# it), alternating (docs/performance.md 17).
#
#   acct-init-cost.sh [-n RANKS] [-r ROUNDS] [-R RULES] BUILD_DIR
#
# ROUNDS (default 10) rounds of one `mpirun -np RANKS` (default 8) job per
# mode, the order rotated each round. Prints per mode the median over jobs
# of the median over ranks of each column of build/tools/perf/acct-init-cost,
# and per mode the median, min and max over rounds of (init + first +
# finalize CPU) minus off's in the same round.
set -euo pipefail
usage() { sed -n '2,14p' "$0"; exit 2; }
src=$(cd "$(dirname "$0")/../.." && pwd)
ranks=8 rounds=10 rules=$src/tests/cluster/rules/eth.yaml
while getopts n:r:R:h opt; do
    case $opt in
    n) ranks=$OPTARG ;; r) rounds=$OPTARG ;; R) rules=$OPTARG ;; *) usage ;;
    esac
done
shift $((OPTIND - 1))
[ $# = 1 ] || usage
build=$(cd "$1" && pwd)
prog=$build/tools/perf/acct-init-cost
for f in "$prog" "$build/lib/libacct.so" "$rules"; do
    [ -e "$f" ] || { echo "acct-init-cost.sh: no $f" >&2; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
modes=(on off pass)
echo "# acct-init-cost.sh $(date -u +%FT%TZ): $ranks ranks, $rounds rounds, load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((k = 0; k < rounds; k++)); do
    for ((i = 0; i < ${#modes[@]}; i++)); do
        m=${modes[$(((i + k) % ${#modes[@]}))]}
        env=()
        case $m in
        on) env=(-x "LD_PRELOAD=$build/lib/libacct.so" -x "ACCT_RULES=$rules"
                 -x "ACCT_REPORT=$work/report.$k.yaml") ;;
        pass) env=(-x "LD_PRELOAD=$build/lib/libacct.so" -x ACCT_DISABLE=1) ;;
        esac
        OMPI_MCA_mpi_yield_when_idle=1 mpirun --allow-run-as-root --oversubscribe -np "$ranks" \
            "${env[@]}" "$prog" </dev/null | sed "s/^/$k $m /" >>"$work/all" ||
            { echo "acct-init-cost.sh: round $k $m failed" >&2; exit 1; }
    done
    if ! grep -q '^active: true' "$work/report.$k.yaml"; then
        echo "acct-init-cost.sh: round $k: ACCT was not active" >&2
        exit 1
    fi
done
python3 - "$work/all" <<'PY'
import statistics as st, sys
rows = {}
for line in open(sys.argv[1]):
    f = line.split()
    k, mode, vals = int(f[0]), f[1], dict(zip(f[5::2], map(float, f[6::2])))
    rows.setdefault((k, mode), []).append(vals)
cols = ("start_cpu_ms", "init_cpu_ms", "first_cpu_ms", "finalize_cpu_ms", "init_wall_ms")
med = {key: {c: st.median(r[c] for r in rs) for c in cols} for key, rs in rows.items()}
modes = ("off", "pass", "on")
print(f"{'mode':<5} " + " ".join(f"{c:>16}" for c in cols) + "   (median over jobs of the median rank)")
for m in modes:
    got = [v for (k, mm), v in med.items() if mm == m]
    print(f"{m:<5} " + " ".join(f"{st.median(v[c] for v in got):16.3f}" for c in cols))
total = lambda v: v["init_cpu_ms"] + v["first_cpu_ms"] + v["finalize_cpu_ms"]
for m in ("pass", "on"):
    d = [total(med[(k, m)]) - total(med[(k, "off")]) for k in sorted({k for k, _ in med})]
    print(f"{m} - off, init + first + finalize CPU per rank: median {st.median(d):+.3f} ms "
          f"(min {min(d):+.3f}, max {max(d):+.3f}, {len(d)} rounds)")
PY
echo "# done $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"

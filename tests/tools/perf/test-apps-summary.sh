#!/usr/bin/env bash
# unit.acct_apps_summary: acct-apps -S on made-up LAMMPS jobs (two rounds of
# on, off, pass; LAMMPS's stdout and ACCT reports written here):
#   round 0  off loop 10 Pair 4, on loop 15 Pair 6, pass loop 11 Pair 5
#   round 1  off loop 20 Pair 8, on loop 22 Pair 8, pass loop 20 Pair 8
# so on/off: own time 1.5 and 1.1 (median 1.3), Pair 1.5 and 1.0, loop per second of
# Pair 1.0 and 1.1; pass/off: 1.1 and 1.0, 1.25 and 1.0, 0.88 and 1.0; the
# on reports' allreduce 0.5 s and 1.0 s are 0.0833 and 0.125 per second of
# Pair. Then a pass job that wrote a report, and an on job without one,
# must each be a problem (exit 1). Last, -R acctd's check of the nodes'
# rules (one version on every node, each node's file present).
set -u
src=${1:?usage: test-apps-summary.sh SOURCE_DIR}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
job() { # ROUND MODE LOOP PAIR [REPORT_SECONDS]
    local d=$work/lammps-eam.$1.$2 comm
    mkdir -p "$d"
    comm=$(python3 -c "print(round($3 - $4 - 0.5, 3))")
    cat >"$d/stdout" <<OUT
LAMMPS (7 Jan 2022)
Step Temp E_pair E_mol TotEng Press
       0         1600   -13899.148            0   -13070.512    19511.611
     100    803.03853   -13745.383            0   -13330.283    51295.762
Loop time of $3 on 8 procs for 100 steps with 4000 atoms

MPI task timing breakdown:
Section |  min time  |  avg time  |  max time  |%varavg| %total
---------------------------------------------------------------
Pair    | $4         | $4         | $4         |   1.0 | 40.00
Neigh   | 0.01       | 0.01       | 0.01       |   0.0 |  0.10
Comm    | $comm      | $comm      | $comm      |   0.0 | 50.00
Output  | 0.1        | 0.1        | 0.1        |   0.0 |  1.00
Modify  | 0.001      | 0.001      | 0.001      |   0.0 |  0.01
Other   |            | 0.389      |            |       |  3.89
OUT
    : >"$d/stderr"
    if [ -n "${5:-}" ]; then
        cat >"$d/report.yaml" <<REP
# ACCT report
acct_report: 1
active: true
rules: {partition: eth, interconnect: tcp-1g, version: 101, source: manual}
collectives:
  - {collective: allreduce, algorithm: native, calls: 0, seconds: 0, reordered: 0}
  - {collective: allreduce, algorithm: recursive_doubling, calls: 100, seconds: $5, reordered: 0}
detail_dropped: 0
REP
    fi
    printf 'lammps-eam\t%s\t%s\t0\t%s\n' "$1" "$2" "$(python3 -c "print($3 + 2)")" >>"$work/runs.tsv"
}
job 0 on 15 6 0.5
job 0 off 10 4
job 0 pass 11 5
job 1 off 20 8
job 1 pass 20 8
job 1 on 22 8 1.0
out=$("$src/tools/perf/acct-apps" -S -o "$work"); rc=$?
echo "$out"
fails=0
[ $rc = 0 ] || { echo "FAIL: acct-apps -S exited $rc on clean jobs"; fails=$((fails + 1)); }
expect() { # REGEX WHAT
    grep -qE -e "$1" <<<"$out" || { echo "FAIL: $2 (no line matching: $1)"; fails=$((fails + 1)); }
}
expect "application's own time on/off: median 1\.300 \(min 1\.100, max 1\.500, 2 rounds\)" "own time on/off"
expect "Pair \(computation, no MPI\) on/off: median 1\.250 \(min 1\.000, max 1\.500, 2 rounds\)" "Pair on/off"
expect "loop per second of Pair on/off: median 1\.050 \(min 1\.000, max 1\.100, 2 rounds\)" "normalised on/off"
expect "loop per second of Pair pass/off: median 0\.940 \(min 0\.880, max 1\.000, 2 rounds\)" "normalised pass/off"
expect "Pair \(computation, no MPI\) pass/off: median 1\.125 \(min 1\.000, max 1\.250, 2 rounds\)" "Pair pass/off"
expect "^ +allreduce +100 +0 +0\.750 +0\.000 +0\.1042  recursive_doubling$" "allreduce per second of Pair"
expect "^    off +15\.000 +6\.000 " "sections of off (medians)"
expect "round 1 +on: .*identical" "results compared"
# a pass job with a report, an on job without one: problems
cp "$work/lammps-eam.0.on/report.yaml" "$work/lammps-eam.1.pass/"
rm "$work/lammps-eam.1.on/report.yaml"
out=$("$src/tools/perf/acct-apps" -S -o "$work"); rc=$?
[ $rc = 1 ] || { echo "FAIL: exit $rc with a stray and a missing report (want 1)"; fails=$((fails + 1)); }
expect "round 1 +pass: .*WROTE A REPORT" "pass job's report flagged"
expect "round 1 +on: .*NO ACTIVE REPORT" "on job without a report flagged"
# a malformed runs.tsv names its line
printf 'lammps-eam\t2\tbogus\t0\t1\n' >>"$work/runs.tsv"
err=$("$src/tools/perf/acct-apps" -S -o "$work" 2>&1); rc=$?
[ $rc != 0 ] && grep -q "runs.tsv:7: expected APP ROUND MODE RC WALL" <<<"$err" ||
    { echo "FAIL: bad runs.tsv line: exit $rc, $err"; fails=$((fails + 1)); }
# -R acctd: the rules every node's acctd materialised, one version on all
# (node_rules, called as acct-apps calls it, on a made-up cluster directory)
cdir=$work/cluster
for n in acct-n1 acct-n2 acct-n3; do
    mkdir -p "$cdir/nodes/$n/run-acct/rules/eth"
    printf 'acct_rules: 1\nprovenance:\n  partition: eth\n  interconnect: tcp-1g\n  version: 7\n  source: tuned\n  created: "2026-11-27T17:00:00Z"\ncollectives:\n' \
        >"$cdir/nodes/$n/run-acct/rules/eth/tcp-1g.yaml"
done
node_rules() { # PART -> "rc: message"
    python3 - "$src/tools/perf/acct-apps" "$cdir" "$1" <<'PY' 2>&1
import importlib.machinery, importlib.util, sys
loader = importlib.machinery.SourceFileLoader("acct_apps", sys.argv[1])
spec = importlib.util.spec_from_loader("acct_apps", loader)
m = importlib.util.module_from_spec(spec)
loader.exec_module(m)
try:
    path, desc = m.node_rules(sys.argv[2], sys.argv[3])
    print("0:", path.split("/nodes/")[1], desc)
except SystemExit as e:
    print("1:", e)
PY
}
got=$(node_rules eth)
[ "$got" = "0: acct-n1/run-acct/rules/eth/tcp-1g.yaml version 7 (tuned, 2026-11-27T17:00:00Z) of acctd on 3 nodes" ] ||
    { echo "FAIL: -R acctd on three nodes at version 7: $got"; fails=$((fails + 1)); }
sed -i 's/version: 7/version: 8/' "$cdir/nodes/acct-n2/run-acct/rules/eth/tcp-1g.yaml"
got=$(node_rules eth)
grep -q "^1: acct-apps: -R acctd: the nodes serve different versions of eth/tcp-1g: acct-n1 7, acct-n2 8, acct-n3 7$" <<<"$got" ||
    { echo "FAIL: -R acctd with versions 7, 8, 7: $got"; fails=$((fails + 1)); }
rm "$cdir/nodes/acct-n3/run-acct/rules/eth/tcp-1g.yaml"
got=$(node_rules eth)
grep -q "^1: acct-apps: -R acctd: .*acct-n3/run-acct/rules/eth/tcp-1g.yaml: no rules file with a provenance (is acctd running on acct-n3" <<<"$got" ||
    { echo "FAIL: -R acctd with a node without rules: $got"; fails=$((fails + 1)); }
[ $fails = 0 ] && echo "acct-apps -S: all checks passed"
exit $((fails > 0))

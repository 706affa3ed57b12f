#!/usr/bin/env bash
# Rules that depend on the layout (schema 2: ranks_per_node, layout): one
# rules file, the same job on three pretended placements (ACCT_LAYOUT), and
# each placement must run the bcast rule written for it -- on every rank
# (the debug line), in the report -- while a rule without layout keys
# applies to all; results equal the native run's byte for byte.
# usage: rules_layout_check.sh NP LIBACCT_SO PROGRAM MPIEXEC [MPIEXEC_FLAGS...]
# PROGRAM: acct_coll_check (prints digests and the "... OK" line).
set -u
np=$1 lib=$2 prog=$3 mpiexec=$4
shift 4
flags=("$@")
run_timeout=(-k 10 300)
# shellcheck source-path=SCRIPTDIR source=checklib.sh
. "$(dirname "$0")/checklib.sh"

rules=$work/rules.yaml
cat >"$rules" <<'YAML'
acct_rules: 2
provenance: {partition: test, interconnect: loopback, version: 1, source: manual, created: "2026-11-26T00:00:00Z"}
collectives:
  bcast:
    - {comm_size: [2, max], ranks_per_node: 1, algorithm: chain}
    - {comm_size: [2, max], ranks_per_node: [2, max], layout: regular, algorithm: hier_binomial}
    - {comm_size: [2, max], ranks_per_node: [2, max], layout: irregular, algorithm: hier_chain}
  allreduce:
    - {comm_size: [2, max], algorithm: ring}
YAML

run() { # run NAME [VAR=VALUE...]
    local name=$1; shift
    mpi_run "$name" "$@" ${ASAN_OPTIONS:+"ASAN_OPTIONS=$ASAN_OPTIONS"}
}
ok() { [ "$(rc_of "$1")" = 0 ] && grep -Eq "^coll_check: np=$np checks=[0-9]+ errors=0 OK$" "$work/$1.out"; }
# calls of COLL by ALG on the world communicator in run NAME's report
world_calls() {
    sed -n "s/^  - {collective: $2, algorithm: $3, comm_size: $np, .*calls: \([0-9]*\),.*/\1/p" \
        "$work/$1.report"
}
# every rank logged the layout it decided bcast for
decided_on_all() { # NAME WHAT
    local n
    n=$(grep -c "rules: bcast on $np ranks decided for $2\$" "$work/$1.err")
    [ "$n" -eq "$np" ] || { echo "    $n of $np ranks logged \"decided for $2\""; return 1; }
}
ran_only() { # NAME ALG: bcast on the world ran ALG, and no other bcast rule's method
    local a n
    for a in chain hier_binomial hier_chain native; do
        n=$(world_calls "$1" bcast "$a")
        if [ "$a" = "$2" ]; then
            [ "${n:-0}" -gt 0 ] || { echo "    bcast $a made '${n}' calls"; return 1; }
        elif [ "${n:-0}" -gt 0 ]; then
            echo "    bcast $a made $n calls (expected only $2)"; return 1
        fi
    done
    n=$(world_calls "$1" allreduce ring)
    [ "${n:-0}" -gt 0 ] || { echo "    the rule without layout keys (allreduce ring) did not run"; return 1; }
}

run native OMPI_MCA_mpi_yield_when_idle=1
check "native run passes" ok native
# placement  expected bcast method  the layout as the rules see it
cases="1:chain:1_ranks_per_node_(regular_layout) 2:hier_binomial:2_ranks_per_node_(regular_layout)
5,3:hier_chain:5_ranks_per_node_(irregular_layout)"
for c in $cases; do
    layout=${c%%:*} rest=${c#*:} alg=${rest%%:*} what=${rest#*:} what=${what//_/ }
    name=layout_${layout//,/_}
    run "$name" LD_PRELOAD="$preload" ACCT_RULES="$rules" ACCT_LAYOUT="$layout" ACCT_VERBOSE=2 \
        ACCT_REPORT="$work/$name.report" OMPI_MCA_mpi_yield_when_idle=1
    check "ACCT_LAYOUT=$layout: passes" ok "$name"
    check "ACCT_LAYOUT=$layout: results equal the native run's" \
        diff <(digests native) <(digests "$name")
    check "ACCT_LAYOUT=$layout: every rank decided bcast for $what" decided_on_all "$name" "$what"
    check "ACCT_LAYOUT=$layout: bcast ran $alg only" ran_only "$name" "$alg"
done
finish || { for f in "$work"/*.err; do echo "--- $f"; grep -v 'debug:' "$f" | head -20; done; exit 1; }

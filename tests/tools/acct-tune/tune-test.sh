#!/usr/bin/env bash
# acct-tune's MPI tests (tools/acct-tune/CMakeLists.txt, label mpi).
#
# usage: tune-test.sh CASE TUNE CHECK ACCTCTL MPIEXEC [MPIEXEC_FLAGS...]
#   CASE  small      4 ranks, 2 collectives x 3 sizes, --budget 60s: a complete
#                    result (check_result), a rules file (acctctl validate) and
#                    an Open MPI rules file
#         resume     kill -9 the ranks in the middle of a run, rerun with the
#                    same --state: nothing recorded is measured again and the
#                    result covers the whole grid
#         budget     a budget far too small: exit 0, complete: false, valid files
#         strategy:S the small grid with --strategy S (mgd, exhaustive, pipeline,
#                    reduced, used, hybrid, model)
#         min_time   --reps 3 --min-time 0.02: 8-byte experiments take many more
#                    repetitions than 3, 1 MiB ones fewer
#         nodes      ACCT_LAYOUT=2 (pairs of ranks on pretended nodes): the
#                    node-aware methods are measured on 4 ranks (2 nodes of 2)
#                    and not on 2 (one node); without a layout (small) never
#         race       --race 3 on 2 and 4 ranks x 8 B, 64 KiB (bcast, reduce,
#                    allreduce): every point raced, winners in the rules, none
#                    slower than native beyond the band (check_result races);
#                    --incumbent; bad racing options refused
#         vcoll      gatherv, scatterv, alltoallv (decided by communicator size
#                    alone): every method measured at every size, one rule per
#                    communicator size with bytes [0, max] whose method is the
#                    least geometric mean of time / best (recomputed by
#                    rows_check.py from the result), and libacct loads the
#                    rules: acct-bench under the preload runs their methods
#         scan       scan and exscan on 2 and 4 ranks x 8 B, 64 KiB: every method
#                    measured (segmented linear too), rules and Open MPI rules
#         bad        a bad option: exit 2 and one error line, no hang
#         bad_used   a bad --used file: exit 1 and FILE:LINE:COLUMN: FIELD: message
#         plane      --strategy plane over 3 communicator sizes x 7 message sizes
#                    (and barrier): every cell decided, interpolated cells in the
#                    rules exactly, searched/verified ones measured (check_result
#                    with the --progress log); a rerun on the journal measures
#                    nothing and decides every cell alike; --source model refused
set -u
case_=$1 tune=$2 check=$3 acctctl=$4 mpiexec=$5
shift 5
flags=("$@")
work=$(mktemp -d)
mpipid=
descendants() { # PID: every process below PID (started by this test), by pid
    local c
    for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do
        echo "$c"
        descendants "$c"
    done
}
kill_ranks() { # timeout, mpirun and the ranks below $mpipid, all at once
    local pids
    pids=$(descendants "$mpipid")
    [ -n "$pids" ] && kill -KILL $pids 2>/dev/null
    return 0
}
cleanup() {
    # only what this script started: the mpirun of this test and its ranks
    if [ -n "$mpipid" ] && kill -0 "$mpipid" 2>/dev/null; then
        kill_ranks
        kill -KILL "$mpipid" 2>/dev/null
    fi
    rm -rf "$work"
}
trap cleanup EXIT
pre=()
[ -n "${ACCT_TEST_PRELOAD:-}" ] && pre=(-x LD_PRELOAD="$ACCT_TEST_PRELOAD")
# --max-comm-size 64: model regions (rank 0 predicts every method at each
# row) stay cheap on this engine; a case may give its own (the last wins).
# A hang guard per mpirun, not a speed target: the small grid's experiments
# take 0.2 s on a quiet host and took 80 s at nice 19 beside a cluster
# retune with a busy loop (load 12), where a 90 s guard failed 10 of the
# acct-tune.np4 cases (2026-11-28); ctest's TIMEOUT (CMakeLists.txt) covers
# a case's several runs.
guard=${ACCT_TUNE_TEST_GUARD:-240}
run() { # NP args... (in $work, $guard s at most)
    local np=$1
    shift
    (cd "$work" && timeout "$guard" "$mpiexec" "${pre[@]}" ${ASAN_OPTIONS:+-x ASAN_OPTIONS} \
        "${flags[@]}" "${mpix[@]}" -np "$np" "$tune" --max-comm-size 64 "$@")
}
mpix=() # extra mpirun arguments of one case
fail() { echo "tune-test.sh $case_: FAIL: $*"; exit 1; }
grid=(--collectives bcast,allreduce --comm-sizes 2,3,4 --sizes 8,1K,64K)
grid_check=(bcast,allreduce 2,3,4 8,1K,64K)

case $case_ in
small)
    # ACCT_REPORT: libacct's own account of what ran (docs/runtime.md)
    mpix=(-x ACCT_REPORT="$work/report.yaml")
    run 4 "${grid[@]}" --budget 60s --reps 5 --progress --out result.yaml \
        --rules rules.yaml --ompi-rules ompi.rules --quadtree-depth 2 || fail "acct-tune failed"
    # the forced methods really ran: segmented bcast pipelines on 4 ranks
    grep -q 'collective: bcast, algorithm: pipeline, comm_size: 4, segment: [1-9]' \
        "$work/report.yaml" || fail "libacct's report shows no forced, segmented pipeline"
    "$check" "$work/result.yaml" "${grid_check[@]}" complete || fail "result"
    "$acctctl" validate "$work/rules.yaml" || fail "rules file"
    grep -q '^# bcast' "$work/ompi.rules" || fail "no bcast section in the Open MPI rules"
    # one host, no pretended layout: one level (issue 21's levels need two nodes)
    grep -q '^  intra:' "$work/result.yaml" && fail "model levels on a one-node layout"
    # one host: every rank on one node, nothing for node-aware methods to do
    grep -q 'algorithm: hier_' "$work/report.yaml" &&
        fail "node-aware methods measured with every rank on one node"
    ;;
scan)
    # scan and exscan (issue 22): every method measured (the linear chain
    # segmented too), decided by communicator size and message bytes as
    # the other reductions, in the rules and the Open MPI rules file
    mpix=(-x ACCT_REPORT="$work/report.yaml")
    run 4 --collectives scan,exscan --comm-sizes 2,4 --sizes 8,64K --budget 60s --reps 5 \
        --out result.yaml --rules rules.yaml --ompi-rules ompi.rules || fail "acct-tune failed"
    "$check" "$work/result.yaml" scan,exscan 2,4 8,64K complete || fail "result"
    "$acctctl" validate "$work/rules.yaml" || fail "rules file"
    for c in scan exscan; do
        grep -q "^  $c:$" "$work/rules.yaml" || fail "no $c rules"
        grep -q "^# $c$" "$work/ompi.rules" || fail "no $c section in the Open MPI rules"
        grep -q "collective: $c, algorithm: linear, comm_size: 4, segment: [1-9]" \
            "$work/report.yaml" || fail "libacct's report shows no segmented $c linear"
        grep -q "collective: $c, algorithm: recursive_doubling, comm_size: 4," \
            "$work/report.yaml" || fail "libacct's report shows no $c recursive_doubling"
    done
    ;;
nodes)
    mpix=(-x ACCT_REPORT="$work/report.yaml" -x ACCT_LAYOUT=2)
    run 4 --collectives bcast,allreduce --comm-sizes 2,4 --sizes 64K,256K --budget 60s --reps 5 \
        --out result.yaml --rules rules.yaml --plogp-out plogp || fail "acct-tune failed"
    "$check" "$work/result.yaml" bcast,allreduce 2,4 64K,256K complete || fail "result"
    "$acctctl" validate "$work/rules.yaml" || fail "rules file"
    for c in bcast allreduce; do
        grep -Eq "collective: $c, algorithm: hier_[a-z_]+, comm_size: 4," "$work/report.yaml" ||
            fail "no node-aware $c measured on 4 ranks (2 nodes of 2): $(grep "$c" "$work/report.yaml")"
        grep -Eq "collective: $c, algorithm: hier_[a-z_]+, comm_size: 2," "$work/report.yaml" &&
            fail "node-aware $c measured on 2 ranks (one node)"
    done
    grep -Eq 'algorithm: hier_' "$work/result.yaml" ||
        fail "the tuning result records no node-aware measurement"
    # issue 21: two pretended nodes of 2 ranks: the intra-node pair (0, 1),
    # the inter-node pair (0, 2), the NIC factors of 2 pairs, one way and
    # two-way, and the inter pair's pair-duplex factor (>= 1) measured
    # (docs/tuning-result.md "model.nic")
    grep -Eq '^  intra: \{L: [0-9.e+-]+, o: ' "$work/result.yaml" &&
        grep -Eq '^  inter: \{L: [0-9.e+-]+, o: ' "$work/result.yaml" &&
        grep -Eq '^  nic: \{pairs: 2, gap_factor: [0-9.e+-]+, bidir_pairs: [0-9]+, bidir_gap_factor: [0-9.e+-]+, pair_duplex_factor: [0-9.e+]+(, pair_duplex_overlap_bytes: [0-9]+)?\}$' "$work/result.yaml" ||
        fail "the result's model has no intra/inter levels, NIC or pair-duplex factor: $(sed -n '/^model:/,/^measurements/p' "$work/result.yaml")"
    d=$(sed -n 's/^  nic: {.*pair_duplex_factor: \([0-9.e+]*\)[,}].*$/\1/p' "$work/result.yaml")
    awk -v d="$d" 'BEGIN { exit !(d >= 1 && d <= 16) }' || fail "pair_duplex_factor $d: not in [1, 16]"
    # its overlap (one message each way at 1 and 4 MiB, session 35): in the
    # .nic file beside it, at most the smaller size, 0 when the factor is 1
    c=$(sed -n 's/^pair_duplex_overlap_bytes \([0-9]*\)$/\1/p' "$work/plogp.nic")
    awk -v c="$c" -v d="$d" 'BEGIN { exit !(c != "" && c <= 1048576 && (d > 1 || c == 0)) }' ||
        fail "pair_duplex_overlap_bytes '$c' (factor $d) in $work/plogp.nic"
    ;;
race)
    # --race (docs/acct-tune.md "Racing"): every point raced; the result's
    # races and rules checked for deterministic properties (check_result
    # races), a bad level refused, --incumbent read; no timing threshold
    run 4 --collectives bcast,reduce,allreduce --comm-sizes 2,4 --sizes 8,64K --reps 5 \
        --race 3 --race-reps 3 --race-rounds 8 --progress --out result.yaml \
        --rules rules.yaml >"$work/race.log" 2>&1 || { cat "$work/race.log"; fail "acct-tune failed"; }
    cat "$work/race.log"
    "$check" "$work/result.yaml" bcast,reduce,allreduce 2,4 8,64K complete races ||
        fail "result"
    "$acctctl" validate "$work/rules.yaml" || fail "rules file"
    grep -q '^acct-tune: racing bcast: 4 points raced, [0-9]* race experiments' "$work/race.log" ||
        fail "no racing cost line"
    grep -q '^acct-tune: noise: A/A spread' "$work/race.log" || fail "no noise line"
    grep -q '^acct-tune: eager limits (MPI_T): ' "$work/race.log" || fail "no eager limits line"
    # the eager probe (docs/acct-tune.md "The eager probe"): with a limit of
    # 3K (segment 2K) and every method a candidate (--race 16), each
    # segmented method of the rooted points is measured at 2K
    run 4 --collectives bcast,reduce --comm-sizes 4 --sizes 64K --reps 3 --race 16 \
        --race-reps 2 --race-rounds 6 --eager-limits 3K --progress --out result4.yaml \
        >"$work/race4.log" 2>&1 || { cat "$work/race4.log"; fail "acct-tune --eager-limits failed"; }
    grep -q '^acct-tune: eager limits (--eager-limits): --eager-limits 3072: segments 2K$' \
        "$work/race4.log" || fail "eager limits line: $(grep eager "$work/race4.log")"
    grep -q '^acct-tune: eager probe reduce p=4 65536: ' "$work/race4.log" || fail "no probe line"
    "$check" "$work/result4.yaml" bcast,reduce 4 64K complete races 2K || fail "eager probe"
    # the previous rules as the incumbent: its decision races at every point
    run 4 --collectives bcast --comm-sizes 4 --sizes 64K --reps 5 --race 2 --race-reps 3 \
        --race-rounds 6 --incumbent rules.yaml --out result2.yaml >"$work/race2.log" 2>&1 ||
        { cat "$work/race2.log"; fail "acct-tune --incumbent failed"; }
    "$check" "$work/result2.yaml" bcast 4 64K complete races || fail "result with --incumbent"
    # an incumbent of rules bound to layouts (merged rules): its decision at
    # the run's layout races (4 ranks on this one host: 4 per node), not
    # the first rule of the point (another layout's)
    cat >"$work/merged.yaml" <<'EOF_RULES'
acct_rules: 2
provenance: {partition: p, interconnect: i, version: 1, source: manual, created: "2026-11-27T00:00:00Z"}
collectives:
  bcast:
    - {comm_size: 4, ranks_per_node: [1, 3], algorithm: binary, segment: 16K}
    - {comm_size: 4, ranks_per_node: [4, max], algorithm: knomial, segment: 8K, fanout: 3}
EOF_RULES
    run 4 --collectives bcast --comm-sizes 4 --sizes 64K --reps 3 --race 1 --race-reps 3 \
        --race-rounds 5 --incumbent merged.yaml --out result3.yaml >"$work/race3.log" 2>&1 ||
        { cat "$work/race3.log"; fail "acct-tune --incumbent merged.yaml failed"; }
    grep -q '{algorithm: knomial, segment: 8K, fanout: 3,' "$work/result3.yaml" ||
        fail "the incumbent at 4 ranks per node did not race: $(grep -A3 '^races:' "$work/result3.yaml")"
    out=$(run 4 --race 2 --race-alpha 0.9 2>&1)
    [ $? = 2 ] && [ "$(echo "$out" | grep -c error)" = 1 ] || fail "--race-alpha 0.9: $out"
    out=$(run 4 --race 2 --strategy plane 2>&1)
    [ $? = 2 ] && echo "$out" | grep -q 'race: not with plane' || fail "--race with plane: $out"
    ;;
resume)
    args=("${grid[@]}" --sizes 8,1K,16K,64K --reps 20 --state state.txt --out result.yaml)
    (cd "$work" && exec timeout "$guard" "$mpiexec" "${pre[@]}" ${ASAN_OPTIONS:+-x ASAN_OPTIONS} \
        "${flags[@]}" -np 4 "$tune" "${args[@]}") >"$work/first.log" 2>&1 &
    mpipid=$!
    # wait until some experiments are recorded, then kill timeout, mpirun and
    # every rank at once (kill -9: nothing can flush or clean up)
    for _ in $(seq 1 600); do
        n=$(grep -c '^m ' "$work/state.txt" 2>/dev/null)
        [ "${n:-0}" -ge 40 ] && break
        kill -0 "$mpipid" 2>/dev/null || break
        sleep 0.1
    done
    kill -0 "$mpipid" 2>/dev/null || fail "the first run ended before it could be killed"
    kill_ranks
    wait "$mpipid" 2>/dev/null
    mpipid=
    [ -e "$work/result.yaml" ] && fail "a killed run wrote a result"
    # complete lines (a line cut by the kill has no newline), minus the header
    before=$(($(tr -cd '\n' <"$work/state.txt" | wc -c) - 1))
    echo "killed after $before recorded experiments"
    run 4 "${args[@]}" >"$work/second.log" 2>&1 || { cat "$work/second.log"; fail "rerun failed"; }
    cat "$work/second.log"
    replayed=$(sed -n 's/.* \([0-9]*\) taken from the state file.*/\1/p' "$work/second.log")
    # the searches replay the journal: every recorded experiment is reused
    [ "${replayed:-0}" = "$before" ] ||
        fail "${replayed:-0} experiments reused, $before were recorded"
    # no experiment recorded twice
    dups=$(grep '^m ' "$work/state.txt" | cut -d' ' -f2-8 | sort | uniq -d | wc -l)
    [ "$dups" = 0 ] || fail "$dups experiments were measured again"
    "$check" "$work/result.yaml" bcast,allreduce 2,3,4 8,1K,16K,64K complete || fail "result"
    ;;
budget)
    run 4 "${grid[@]}" --sizes 8,1K,64K,256K --reps 200 --budget 1s --progress --out result.yaml \
        --rules rules.yaml >"$work/log" 2>&1 || { cat "$work/log"; fail "acct-tune failed"; }
    cat "$work/log"
    grep -q "incomplete: stopped by the budget" "$work/log" || fail "no budget stop reported"
    # nothing is timed once the budget is over: no A/A pair after the first
    # point it stopped (they ran on, 20 s per collective at 100 Mbit/s)
    late=$(sed -n '/(stopped)/,$p' "$work/log" | grep "native against itself" || true)
    [ -z "$late" ] || fail "an A/A pair timed after the budget: $late"
    "$check" "$work/result.yaml" bcast,allreduce 2,3,4 8,1K,64K,256K incomplete || fail "result"
    "$acctctl" validate "$work/rules.yaml" || fail "rules file"
    # no evidence, no rule: a collective the budget stopped before 256K
    # has no rule reaching "max" bytes (acct_rules_end_bytes), and says so;
    # a native rule that says it has no evidence (one rank) decides nothing
    for c in bcast allreduce; do
        grep -q "^  - {collective: $c, comm_size: [0-9]*, bytes: 256K," "$work/result.yaml" && continue
        open=$(awk -v c="  $c:" '/^  [a-z_]+:$/ { in_c = ($0 == c) } in_c && /bytes: \[[^]]*, max\]/' \
            "$work/rules.yaml" | grep -v 'algorithm: native, evidence: none}' || true)
        [ -z "$open" ] || fail "$c was not measured at 256K, yet a rule reaches max bytes: $open"
        grep -q "^  $c:$" "$work/rules.yaml" && ! grep -q "acct-tune: $c measured up to .* of the 256K asked for" "$work/log" &&
            fail "no line saying where $c's rules end"
    done
    ;;
strategy:*)
    s=${case_#strategy:}
    extra=()
    # model and hybrid: the pLogP table too (the model-accuracy report's input)
    [ "$s" = model ] || [ "$s" = hybrid ] && extra=(--plogp-out plogp.txt)
    if [ "$s" = used ]; then
        printf '# collective comm_size bytes\nbcast 4 1K\nbcast 2 64K\nallreduce 3 8\n' \
            >"$work/used.txt"
        extra=(--used used.txt)
    fi
    run 4 "${grid[@]}" --strategy "$s" --reps 5 --out result.yaml --rules rules.yaml \
        "${extra[@]}" >"$work/log" 2>&1 || { cat "$work/log"; fail "acct-tune failed"; }
    cat "$work/log"
    # reduced interpolates between the sizes it searches; used measures its points only
    want=complete
    [ "$s" = used ] || [ "$s" = reduced ] && want=any
    "$check" "$work/result.yaml" "${grid_check[@]}" $want || fail "result"
    grep -q "complete: true" "$work/result.yaml" || fail "the run is not complete"
    grep -q "strategy: \"$s\"" "$work/result.yaml" || fail "strategy not recorded"
    "$acctctl" validate "$work/rules.yaml" || fail "rules file"
    if [ "$s" = model ] || [ "$s" = hybrid ]; then
        # the LogGP section is always there, every parameter >= 0 (the
        # conversion clamps L), and the pLogP table was written
        grep -qE '^model:' "$work/result.yaml" || fail "no model section"
        for k in L o g G; do
            v=$(awk -v k="$k" '/^model:/{m=1;next} m && $1==k":"{print $2; exit}' "$work/result.yaml")
            awk -v v="$v" 'BEGIN{exit !(v != "" && v+0 >= 0)}' || fail "model $k = '$v'"
        done
        head -1 "$work/plogp.txt" | grep -qx 'acct-plogp 1' || fail "no pLogP table"
    fi
    ;;
model_regions)
    # a measured run measures the model too; its rules name it, and each
    # collective says whether it got model regions (docs/acct-tune.md,
    # "Model regions"); modelled rules lie beyond 4 ranks, up to 32, or
    # below 3 (a small grid: the pLogP measurement costs seconds under load)
    run 4 --collectives bcast,allreduce --comm-sizes 3,4 --sizes 8,64K --reps 3 \
        --max-comm-size 32 --out result.yaml --rules rules.yaml --ompi-rules ompi.rules >"$work/log" 2>&1 || { cat "$work/log"; fail "acct-tune failed"; }
    cat "$work/log"
    "$acctctl" validate "$work/rules.yaml" || fail "rules file"
    grep -qE '^model:' "$work/result.yaml" || fail "a measured run has no model section"
    rl=$(sed -n 's/^  model: {tuning_run: "[^"]*", L: \([^,]*\),.*/\1/p' "$work/rules.yaml")
    ml=$(awk '/^model:/{m=1;next} m && $1=="L:"{print $2; exit}' "$work/result.yaml")
    [ -n "$rl" ] && awk -v a="$rl" -v b="$ml" 'BEGIN{exit !(a+0 == b+0)}' ||
        fail "the rules' provenance.model L '$rl' is not the result's model L '$ml'"
    grep -q "^  model: {tuning_run: \"$(sed -n 's/^  id: "\(.*\)"$/\1/p' "$work/result.yaml")\"" \
        "$work/rules.yaml" || fail "provenance.model does not name the run"
    for c in bcast allreduce; do
        line=$(grep "^acct-tune: model regions of $c beyond 4 ranks: " "$work/log") ||
            fail "no model-regions line for $c"
        n=$(awk -v c="$c" '/^  [a-z_]+:$/{cur=$1} cur==c":" && /evidence: model/' "$work/rules.yaml" | wc -l)
        case $line in
        *"not trusted: none, larger communicators run native") [ "$n" = 0 ] ||
            fail "$c: not trusted, yet $n modelled rules" ;;
        *": trusted, "*" rows up to 32 ranks"*) [ "$n" -gt 0 ] || fail "$c: trusted, no modelled rule" ;;
        *) fail "$c: $line" ;;
        esac
    done
    # below the smallest measured size (3): the model's decision at 2 ranks
    # where it is trusted, else native with evidence: none; one rank is
    # native, evidence: none; no measured rule below 3 (before, the 3-rank
    # decision was extended down to 1 rank)
    for c in bcast allreduce; do
        line=$(grep "^acct-tune: model regions of $c below 3 ranks: " "$work/log") ||
            fail "no model-regions line below 3 ranks for $c"
        rules=$(awk -v c="$c" '/^  [a-z_]+:$/{cur=$1} cur==c":" && /comm_size/' "$work/rules.yaml")
        case $line in
        *": not trusted, 1 rule, native (evidence: none) at 2 sizes")
            grep -qF "{comm_size: [1, 2], bytes: [0, max], algorithm: native, evidence: none}" <<<"$rules" ||
                fail "$c: not trusted, no native rule [1, 2]: $rules" ;;
        *": trusted, 1 rows down to 2 ranks, "*" native (evidence: none) at 1 size (one rank: nothing to decide)")
            grep -qF "{comm_size: 1, bytes: [0, max], algorithm: native, evidence: none}" <<<"$rules" &&
                grep -q "comm_size: 2, .*evidence: model" <<<"$rules" ||
                fail "$c: trusted, no model rule at 2 ranks and native one rank: $rules" ;;
        *) fail "$c: $line" ;;
        esac
        bad=$(grep -E 'comm_size: (1|2|\[1,|\[2,)' <<<"$rules" | grep -v 'evidence: ' || true)
        [ -z "$bad" ] || fail "$c: measured rules below 3 ranks: $bad"
    done
    # every modelled rule lies in (4, 32] or at 2 ranks
    bad=$(grep 'evidence: model' "$work/rules.yaml" |
        sed -n 's/.*comm_size: \[\{0,1\}\([0-9]*\)[], ]*\([0-9max]*\).*/\1 \2/p' |
        awk '$1 != 2 && ($1 <= 4 || $2 == "max" || ($2 != "" && $2+0 > 32))')
    [ -z "$bad" ] || fail "modelled rules outside (4, 32] and 2 ranks: $bad"
    # the Open MPI export: at one rank ACCT says native: the first section
    # (from 1 rank) holds Open MPI's own decision, algorithm 0
    [ "$(awk '/^# bcast$/{getline; getline; getline; printf "%s|", $0; getline; print; exit}' \
        "$work/ompi.rules")" = "1 1|0 0 0 0" ] ||
        fail "Open MPI export: the first bcast section is not Open MPI's default: $(cat "$work/ompi.rules")"
    # --max-comm-size 0: no model regions, no provenance.model; the model is still measured
    run 4 --collectives bcast --comm-sizes 4 --sizes 64K --reps 3 --max-comm-size 0 \
        --out r0.yaml --rules rules0.yaml >"$work/log0" 2>&1 || { cat "$work/log0"; fail "acct-tune failed"; }
    grep -qE '^model:' "$work/r0.yaml" || fail "--max-comm-size 0: no model section"
    grep -q '^  model: {' "$work/rules0.yaml" && fail "--max-comm-size 0: provenance.model written"
    grep -q 'model regions of' "$work/log0" && fail "--max-comm-size 0: a model-regions line"
    # and no rule below the measured 4 ranks (native there by absence)
    grep -qE 'comm_size: (1|2|3|\[[123],)' "$work/rules0.yaml" &&
        fail "--max-comm-size 0: a rule below 4 ranks: $(cat "$work/rules0.yaml")"
    ;;
min_time)
    run 4 --collectives bcast --comm-sizes 4 --sizes 8,1M --max-segments 2 --strategy exhaustive --reps 3 \
        --min-time 0.02 --out result.yaml >"$work/log" 2>&1 || { cat "$work/log"; fail "acct-tune failed"; }
    "$check" "$work/result.yaml" bcast 4 8,1M complete || fail "result"
    reps() { sed -n "s/.*collective: bcast, comm_size: 4, bytes: $1, algorithm: $2,.* reps: \([0-9]*\),.*/\1/p" \
        "$work/result.yaml" | head -1; }
    small=$(reps 8 linear) large=$(reps 1M linear)
    echo "linear: ${small:-?} repetitions at 8 B, ${large:-?} at 1 MiB"
    [[ ${small:-0} -gt 20 ]] || fail "8 B took ${small:-0} repetitions, want more than 20 (--min-time)"
    [[ ${large:-0} -ge 3 && ${large:-0} -lt ${small:-0} ]] || fail "1 MiB took ${large:-0} repetitions"
    grep -q 'min-time' <<<"$(run 4 --min-time x 2>&1)" || fail "--min-time x: no error"
    ;;
vcoll)
    vc=gatherv,scatterv,alltoallv
    methods=native:linear:binomial,native:linear:binomial,native:linear:pairwise
    run 4 --collectives $vc --comm-sizes 2,3,4 --sizes 8,1K,64K --reps 5 --out result.yaml \
        --rules rules.yaml --ompi-rules ompi.rules >"$work/log" 2>&1 ||
        { cat "$work/log"; fail "acct-tune failed"; }
    cat "$work/log"
    "$check" "$work/result.yaml" $vc 2,3,4 8,1K,64K complete || fail "result"
    "$acctctl" validate "$work/rules.yaml" || fail "rules file"
    for c in ${vc//,/ }; do
        grep -q "^acct-tune: $c is decided by communicator size alone: " "$work/log" ||
            fail "no line saying how $c was decided"
    done
    python3 "$(dirname "$0")/rows_check.py" "$work/result.yaml" "$work/rules.yaml" $vc 2,3,4 \
        8,1K,64K $methods || fail "rules against the measurements: $(cat "$work/rules.yaml")"
    # libacct loads the rules: acct-bench's uniform calls on 4 ranks run the
    # method the rules give 4 ranks (the report's row of that algorithm)
    [ -n "${ACCT_TUNE_TEST_BENCH:-}" ] && [ -n "${ACCT_TUNE_TEST_LIBACCT:-}" ] ||
        fail "ACCT_TUNE_TEST_BENCH and ACCT_TUNE_TEST_LIBACCT must name acct-bench and libacct.so"
    for c in ${vc//,/ }; do
        want=$(python3 "$(dirname "$0")/rows_check.py" --decision "$work/rules.yaml" "$c" 4)
        (cd "$work" && timeout "$guard" "$mpiexec" "${flags[@]}" \
            -x LD_PRELOAD="${ACCT_TEST_PRELOAD:+$ACCT_TEST_PRELOAD }$ACCT_TUNE_TEST_LIBACCT" \
            -x ACCT_RULES="$work/rules.yaml" -x ACCT_REPORT="$work/report-$c.yaml" \
            ${ASAN_OPTIONS:+-x ASAN_OPTIONS} -np 4 "$ACCT_TUNE_TEST_BENCH" -c "$c" --sizes 8,64K \
            -n 3 -w 1 >"$work/bench-$c.log" 2>&1) || { cat "$work/bench-$c.log"; fail "acct-bench -c $c"; }
        grep -q "^  - {collective: $c, algorithm: $want, calls: [1-9]" "$work/report-$c.yaml" ||
            fail "rules give $c on 4 ranks $want, the report says: $(grep "collective: $c," "$work/report-$c.yaml")"
        echo "$c on 4 ranks: the rules' $want ran"
    done
    ;;
bad)
    out=$(run 4 --strategy bogus 2>&1)
    rc=$?
    [ $rc = 2 ] || fail "exit status $rc, want 2"
    [ "$(grep -c 'acct-tune: error:' <<<"$out")" = 1 ] || fail "not exactly one error line: $out"
    grep -q 'unknown strategy "bogus"' <<<"$out" || fail "message: $out"
    ;;
bad_used)
    printf 'bcast 4 1K\nbcast 4 12Q\n' >"$work/used.txt"
    out=$(run 4 --strategy used --used used.txt 2>&1)
    rc=$?
    [ $rc = 1 ] || fail "exit status $rc, want 1"
    [ "$(grep -c 'acct-tune: error:' <<<"$out")" = 1 ] || fail "not exactly one error line: $out"
    grep -q 'used.txt:2:9: bytes: not a size: "12Q"' <<<"$out" || fail "message: $out"
    ;;
plane)
    args=(--collectives bcast,allreduce,barrier --comm-sizes 2,3,4 --sizes 8:32K:4
          --strategy plane --col-stride 3 --check 0 --keep 0.5 --reps 5 --progress
          --state state.txt --rules rules.yaml)
    cells() { grep -E '^acct-tune: \[[0-9]+/[0-9]+\]' "$1" | sed 's/, elapsed.*//'; }
    run 4 "${args[@]}" --out result.yaml >"$work/log" 2>&1 || { cat "$work/log"; fail "acct-tune failed"; }
    cat "$work/log"
    "$check" "$work/result.yaml" bcast,allreduce,barrier 2,3,4 8:32K:4 any "$work/log" ||
        fail "result against the plane's cells"
    grep -q 'strategy: "plane"' "$work/result.yaml" || fail "strategy not recorded"
    grep -q "complete: true" "$work/result.yaml" || fail "the run is not complete"
    [ "$(cells "$work/log" | wc -l)" = 45 ] || fail "not 45 cells (2 x 3 x 7 + 3)"
    for c in bcast allreduce; do
        grep -qE "^acct-tune: $c plane of 3 x 7 cells: .*, 0 not decided$" "$work/log" ||
            fail "$c: no plane summary with every cell decided"
    done
    "$acctctl" validate "$work/rules.yaml" || fail "rules file"
    run 4 "${args[@]}" --out again.yaml >"$work/log2" 2>&1 || { cat "$work/log2"; fail "rerun failed"; }
    grep -q ": 0 experiments run" "$work/log2" || fail "the rerun measured again: $(tail -1 "$work/log2")"
    diff <(cells "$work/log") <(cells "$work/log2") || fail "the rerun decided differently"
    out=$(run 4 --strategy plane --source model 2>&1)
    [ $? = 2 ] && grep -q 'cannot run with --source model' <<<"$out" || fail "plane + model: $out"
    ;;
*)
    fail "unknown case"
    ;;
esac
echo "tune-test.sh $case_: ok"

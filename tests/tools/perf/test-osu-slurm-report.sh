#!/usr/bin/env bash
# unit.acct_osu_slurm_report: acct-osu-slurm report's ratios and verdicts on
# made-up raw files (three pairs; OSU avg and max columns):
#   bcast 8     ACCT 11/12/13 against native 10.1/10.2/10.3 on avg -> SLOWER;
#               max 5 against 20.x -> faster
#   bcast 1M    ACCT equal to native but one pair slower -> ~ (within noise)
#   reduce 64K  native's own runs swing 10/20/10 (noise 100 %), ACCT 1.5x -> ~
set -u
src=${1:?usage: test-osu-slurm-report.sh SOURCE_DIR}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/raw"
row() { # FILE COLL BYTES AVG MAX
    printf '%s\t%s\t8\t%s\t20\t%s\t1.000\t%s\n' "${1##*/}" "$2" "$3" "$4" "$5" >>"$1"
}
for p in 1 2 3; do
    for s in acct off; do
        for c in bcast reduce; do
            f=$work/raw/$c.$s.$p.tsv
            printf '# made up\nlabel\tcollective\tcomm_size\tbytes\titerations\tavg_us\tmin_us\tmax_us\n' >"$f"
        done
    done
    row "$work/raw/bcast.acct.$p.tsv" bcast 8 "1$p.0" 5.0
    row "$work/raw/bcast.off.$p.tsv" bcast 8 "10.$p" "20.$p"
    row "$work/raw/bcast.acct.$p.tsv" bcast 1048576 "$([ $p = 2 ] && echo 1200 || echo 1000)" 2000
    row "$work/raw/bcast.off.$p.tsv" bcast 1048576 1000 2000
    row "$work/raw/reduce.acct.$p.tsv" reduce 65536 "$([ $p = 2 ] && echo 30 || echo 15)" 40
    row "$work/raw/reduce.off.$p.tsv" reduce 65536 "$([ $p = 2 ] && echo 20 || echo 10)" 40
done
out=$("$src/tools/perf/acct-osu-slurm" report -o "$work") || { echo "report exited $?"; exit 1; }
echo "$out"
fails=0
expect() { # REGEX WHAT
    grep -qE -e "$1" <<<"$out" || { echo "FAIL: $2 (no line matching: $1)"; fails=$((fails + 1)); }
}
expect '^\| bcast \| 8 \| 3 \| 10\.2 \| 1\.18 \(1\.09-1\.26\) \| 3 % \| \*\*SLOWER\*\* \| 20\.2 \| 0\.25 .* \| faster \|$' \
    "bcast 8: slower on avg, faster on max"
expect '^\| bcast \| 1M \| 3 \| 1000\.0 \| 1\.00 \(1\.00-1\.20\) \| 3 % \| ~ \| 2000\.0 \| 1\.00 .* \| ~ \|$' \
    "bcast 1M: one slow pair is not beyond noise"
expect '^\| reduce \| 64K \| 3 \| 10\.0 \| 1\.50 \(1\.50-1\.50\) \| 100 % \| ~ \|' \
    "reduce 64K: 1.5x within native's own 100 % swing"
expect '^# avg: \*\*SLOWER\*\* 1, ~ 2$' "avg summary"
expect '^# max: faster 1, ~ 2$' "max summary"
((fails == 0)) && echo "unit.acct_osu_slurm_report: ok"
exit $((fails > 0))

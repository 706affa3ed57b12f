#!/usr/bin/env python3
"""Turn acct-bench TSV output (one file per forced method) into a tuning
result (docs/tuning-result.md) that acct-quadtree-bench --result reads.

    tsv2result.py OUT.yaml LABEL.tsv...

Each TSV's label names the method as ACCT_FORCE does, with ':' written as
'_' (acct-bench labels cannot hold ':'): "binomial", "pipeline_8K",
"knomial__4" (fan-out 4), "chain_8K_2". The result's rules are empty (the
decisions are what acct-quadtree-bench computes from the measurements).
Used for the real-data penalty table in docs/decisions.md."""
import sys


def method(label):
    parts = label.split("_")
    # algorithm names contain "_" themselves: take the shortest prefix whose
    # rest are segment / fan-out fields (sizes start with a digit or are empty)
    for cut in range(1, len(parts) + 1):
        rest = parts[cut:]
        if len(rest) <= 2 and all(r == "" or r[0].isdigit() for r in rest):
            alg = "_".join(parts[:cut])
            seg = rest[0] if len(rest) >= 1 and rest[0] else None
            fan = rest[1] if len(rest) >= 2 and rest[1] else None
            return alg, seg, fan
    raise SystemExit("cannot parse label %r" % label)


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    rows = []
    ranks = 1
    for path in sys.argv[2:]:
        with open(path) as f:
            for line in f:
                if line.startswith("#"):
                    if line.startswith("# ranks="):
                        ranks = int(line.split()[1].split("=")[1])
                    continue
                cols = line.rstrip("\n").split("\t")
                if cols[0] == "label" or len(cols) < 12:
                    continue
                rows.append(cols)
    out = [
        "acct_tuning_result: 1",
        "run:",
        "  id: r-acct-bench-import",
        "  partition: local",
        "  interconnect: shm",
        '  started: "2026-11-22T15:00:00Z"',
        '  finished: "2026-11-22T15:30:00Z"',
        "  complete: true",
        "  strategy: exhaustive",
        "  source: measured",
        "  experiment_seconds: 0",
        "  experiments: %d" % len(rows),
        "conditions:",
        "  hosts: [localhost]",
        "  ranks: %d" % ranks,
        "  ranks_per_node: %d" % ranks,
        "  placement: block",
        '  mpi_library: "Open MPI 4.1.4"',
        '  acct_version: "0.1.0"',
        "measurements:",
    ]
    for c in rows:
        label, coll, p, b, it, _drop, med, q1, q3, mn, mx, _mean = c[:12]
        alg, seg, fan = method(label)
        extra = ""
        if seg:
            extra += ", segment: %s" % seg
        if fan:
            extra += ", fanout: %s" % fan
        # keep min <= q1 <= median <= q3 <= max exactly
        m = float(med)
        lo, hi = min(float(q1), m), max(float(q3), m)
        out.append(
            "  - {collective: %s, comm_size: %s, bytes: %s, algorithm: %s%s, reps: %s, "
            "median_us: %s, q1_us: %r, q3_us: %r, min_us: %r, max_us: %r}"
            % (coll, p, b, alg, extra, it, med, lo, hi, min(float(mn), lo), max(float(mx), hi)))
    out += [
        "rules:",
        "  acct_rules: 1",
        "  provenance:",
        "    partition: local",
        "    interconnect: shm",
        "    version: 1",
        "    source: measured",
        '    created: "2026-11-22T15:30:00Z"',
        "  collectives: {}",
    ]
    with open(sys.argv[1], "w") as f:
        f.write("\n".join(out) + "\n")


main()

#!/usr/bin/env python3
"""Where the model's error sits, from acct-tune-replay's per-experiment report.

    acct-model-errors.py [--by coll|method|size|segment|family|layout ...] [--bytes SIZE]
                         [--worst N] [--tail] [--misses] REPORT.tsv [REPORT.tsv ...]

REPORT.tsv is `acct-tune-replay --model-report --report FILE`'s output
(collective, comm_size, bytes, method as ACCT_FORCE writes it, measured_us,
predicted_us, rel_error, and since session 33 min_us, max_us: the least and
the largest repetition). Prints, as Markdown tables:

* the issue-21 figures over all experiments (median and p90 relative
  error; points where the model's cheapest (method, segment) is within 10 %
  of the measured best; with min_us/max_us also where it is within 10 % or
  within the measured spread: its least repetition no slower than the
  best's largest, i.e. the two ranges overlap);
* per group (--by: collective, method name, collective and size, segment,
  method family -- flat or node-aware (hier_*), segmented or whole, and
  size --, layout: the report file) the count, median and p90 relative
  error and the median of predicted/measured (below 1: the model is
  optimistic), the bias that says which physics is missing;
* --tail: where the experiments at or above the p90 error sit (collective, size,
  family), with their share of the tail and their bias;
* --misses: every point where the model's pick is not within 10 % of the
  measured best: the pick, the best, what each was predicted and measured;
* the segment-size figure (Vadhiyar, Fagg, Dongarra 2004, "Towards an
  accurate model for collective communications": the schedule-based model's
  segment within 1.01-1.12x of the measured optimum): for every segmented
  method (name, fan-out) at every point with at least two segment sizes
  measured (the unsegmented run counts as the segment m), the measured time
  at the segment the model predicts cheapest divided by the measured
  optimum over those segments.

Several reports are pooled (several layouts or runs); --bytes keeps one
message size (64K, 1M, ...). Standard library only.
"""
import argparse
import collections
import math
import sys


def quantile(xs, q):
    """Nearest-rank quantile (acct-tune-replay's p90_index; median = q 0.5 as n/2)."""
    xs = sorted(xs)
    if not xs:
        return float("nan")
    if q == 0.5:
        return xs[len(xs) // 2]
    k = max(int(math.ceil(q * len(xs))) - 1, 0)
    return xs[k]


def parse_method(s):
    """name[:seg[:fan[:reorder]]] -> (name, seg bytes or 0, method key without segment)."""
    f = s.split(":")
    name = f[0]
    seg = parse_size(f[1]) if len(f) > 1 and f[1] else 0
    rest = ":".join(f[2:])
    return name, seg, name + (":" + rest if rest else "")


def parse_size(t):
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    if t[-1] in mult:
        return int(float(t[:-1]) * mult[t[-1]])
    return int(t)


def size_name(b):
    for u, s in (("M", 1 << 20), ("K", 1 << 10)):
        if b >= s and b % s == 0:
            return f"{b // s}{u}"
    return str(b)


def read(paths):
    rows = []
    for path in paths:
        with open(path) as f:
            for ln, line in enumerate(f, 1):
                if line.startswith("#") or not line.strip():
                    continue
                c = line.rstrip("\n").split("\t")
                if len(c) not in (7, 9):
                    sys.exit(f"{path}:{ln}: expected 7 or 9 tab-separated fields, got {len(c)}")
                try:
                    meas, pred = float(c[4]), float(c[5])  # pred nan: measured only (native)
                    p, m = int(c[1]), int(c[2])
                    lo, hi = (float(c[7]), float(c[8])) if len(c) == 9 else (None, None)
                except ValueError as e:
                    sys.exit(f"{path}:{ln}: {e}")
                name, seg, key = parse_method(c[3])
                if not meas > 0:
                    sys.exit(f"{path}:{ln}: measured_us: {c[4]} is not a positive time")
                rows.append(dict(src=path, coll=c[0], p=p, m=m, method=c[3], name=name,
                                 seg=seg, key=key, meas=meas, pred=pred, lo=lo, hi=hi,
                                 err=abs(pred - meas) / meas))
    return rows


def predicted(rows):
    return [r for r in rows if not math.isnan(r["pred"])]


def family(r):
    """flat or node-aware (hier_*), segmented or whole, and the size."""
    return (f"{size_name(r['m'])} {'hier' if r['name'].startswith('hier_') else 'flat'} "
            f"{'seg' if r['seg'] else 'whole'}")


def tail_table(rows):
    """The experiments at or above the p90 relative error, by collective, size and family."""
    cut = quantile([r["err"] for r in rows], 0.9)
    tail = [r for r in rows if r["err"] >= cut]
    g = collections.defaultdict(list)
    for r in tail:
        g[f"{r['coll']} {family(r)}"].append(r)
    print(f"\ntail: {len(tail)} experiments at or above the p90 error ({100 * cut:.0f} %)")
    print("\n| collective, bytes, family | in the tail | share | median predicted/measured |")
    print("|---|---|---|---|")
    for k in sorted(g, key=lambda k: (-len(g[k]), k)):
        v = g[k]
        print(f"| {k} | {len(v)} | {100 * len(v) / len(tail):.0f} % | "
              f"{quantile([r['pred'] / r['meas'] for r in v], 0.5):.2f} |")


def misses_table(rows):
    """Points where the model's pick is not within 10 % of the measured best."""
    print("\n| layout | collective | bytes | model's pick | predicted | measured | measured best "
          "| its prediction | measured | pick / best | ranges overlap |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for k, v in sorted(points(rows).items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][3])):
        pv = predicted(v)
        if not pv:
            continue
        best = min(v, key=lambda r: r["meas"])
        pick = min(pv, key=lambda r: r["pred"])
        if pick["meas"] <= 1.10 * best["meas"]:
            continue
        print(f"| {k[0]} | {k[1]} | {size_name(k[3])} | {pick['method']} | {pick['pred']:.0f} | "
              f"{pick['meas']:.0f} | {best['method']} | {best['pred']:.0f} | {best['meas']:.0f} | "
              f"{pick['meas'] / best['meas']:.2f} | "
              f"{ {None: '?', True: 'yes', False: 'no'}[in_spread(pick, best)]} |")


def group_table(rows, keyf, title):
    g = collections.defaultdict(list)
    for r in rows:
        g[keyf(r)].append(r)
    print(f"\n| {title} | experiments | median rel. error | p90 | median predicted/measured |")
    print("|---|---|---|---|---|")
    for k in sorted(g, key=lambda k: (-len(g[k]), str(k))):
        v = g[k]
        print(f"| {k} | {len(v)} | {100 * quantile([r['err'] for r in v], 0.5):.0f} % | "
              f"{100 * quantile([r['err'] for r in v], 0.9):.0f} % | "
              f"{quantile([r['pred'] / r['meas'] for r in v], 0.5):.2f} |")


def points(rows):
    pts = collections.defaultdict(list)
    for r in rows:
        pts[(r["src"], r["coll"], r["p"], r["m"])].append(r)
    return pts


def in_spread(pick, best):
    """The pick's repetitions reach down to the best's (ranges overlap); None if unknown."""
    if pick["lo"] is None or best["hi"] is None:
        return None
    return pick["lo"] <= best["hi"]


def selection(rows):
    """Per point: is the model's cheapest experiment within 10 % of the measured best
    (native included in the measured best, as acct-tune-replay counts it)? Also
    within 10 % or within the measured spread (None when a report has no spread)."""
    within = n = spread = 0
    known = True
    for v in points(rows).values():
        pv = predicted(v)
        if not pv:
            continue
        best = min(v, key=lambda r: r["meas"])
        pick = min(pv, key=lambda r: r["pred"])
        ok = pick["meas"] <= 1.10 * best["meas"]
        within += ok
        s = in_spread(pick, best)
        known = known and s is not None
        spread += ok or bool(s)
        n += 1
    return within, n, (spread if known else None)


def segment_figure(rows):
    g = collections.defaultdict(list)
    for r in rows:
        g[(r["src"], r["coll"], r["p"], r["m"], r["key"])].append(r)
    ratios = []
    for k, v in g.items():
        if len({r["seg"] if r["seg"] else k[3] for r in v}) < 2:
            continue
        best = min(r["meas"] for r in v)
        pick = min(v, key=lambda r: r["pred"])
        ratios.append((pick["meas"] / best, k, pick["method"],
                       min(v, key=lambda r: r["meas"])["method"]))
    return ratios


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--by", action="append",
                    choices=["coll", "method", "size", "segment", "family", "layout"])
    ap.add_argument("--tail", action="store_true", help="where the experiments above p90 sit")
    ap.add_argument("--misses", action="store_true",
                    help="the points where the model's pick is not within 10 %% of the best")
    ap.add_argument("--worst", type=int, default=0, help="also list the N worst experiments")
    ap.add_argument("--bytes", help="only the points of this message size (64K, 1M, ...)")
    ap.add_argument("reports", nargs="+")
    a = ap.parse_args()
    allrows = read(a.reports)
    if a.bytes is not None:
        try:
            want = parse_size(a.bytes)
        except (ValueError, IndexError):
            sys.exit(f"acct-model-errors: --bytes: '{a.bytes}' is not a size (64K, 1M, 4096)")
        allrows = [r for r in allrows if r["m"] == want]
    rows = predicted(allrows)
    if not rows:
        sys.exit("acct-model-errors: no experiments in " + " ".join(a.reports))
    errs = [r["err"] for r in rows]
    w, n, ws = selection(allrows)
    print(f"experiments {len(rows)}, points {n}: median rel. error "
          f"{100 * quantile(errs, 0.5):.0f} %, p90 {100 * quantile(errs, 0.9):.0f} %, "
          f"max {100 * max(errs):.0f} %; model's best within 10 % of the measured best "
          f"at {w}/{n} points" +
          (f" (within 10 % or within the measured spread: {ws}/{n})" if ws is not None else ""))
    for by in a.by or ["coll", "method"]:
        if by == "coll":
            group_table(rows, lambda r: r["coll"], "collective")
        elif by == "method":
            group_table(rows, lambda r: f"{r['coll']} {r['name']}", "collective, method")
        elif by == "family":
            group_table(rows, family, "bytes, family")
        elif by == "layout":
            group_table(rows, lambda r: r["src"], "layout (report)")
        elif by == "size":
            group_table(rows, lambda r: f"{r['coll']} {size_name(r['m'])}", "collective, bytes")
        else:
            group_table(rows, lambda r: f"{size_name(r['m'])} seg "
                        f"{size_name(r['seg']) if r['seg'] else 'none'}", "bytes, segment")
    if a.tail:
        tail_table(rows)
    if a.misses:
        misses_table(allrows)
    s = segment_figure(rows)
    if s:
        v = [x[0] for x in s]
        print(f"\nsegment size: {len(v)} (segmented method, point) pairs; measured time at the "
              f"model's segment / measured optimum: median {quantile(v, 0.5):.3f}, "
              f"p90 {quantile(v, 0.9):.3f}, range {min(v):.3f}-{max(v):.3f}; "
              f"within 1.12x at {sum(x <= 1.12 for x in v)}/{len(v)}")
        by = collections.defaultdict(list)
        for x in s:
            by[(x[1][1], size_name(x[1][3]))].append(x[0])
        print("\n| collective | bytes | pairs | median | range | within 1.12x |\n|---|---|---|---|---|---|")
        for k in sorted(by, key=lambda k: (k[0], parse_size(k[1]))):
            v = by[k]
            print(f"| {k[0]} | {k[1]} | {len(v)} | {quantile(v, 0.5):.3f} | "
                  f"{min(v):.3f}-{max(v):.3f} | {sum(x <= 1.12 for x in v)}/{len(v)} |")
    if a.worst:
        print("\n| collective | P | bytes | method | measured µs | predicted µs | rel. error |")
        print("|---|---|---|---|---|---|---|")
        for r in sorted(rows, key=lambda r: -r["err"])[:a.worst]:
            print(f"| {r['coll']} | {r['p']} | {size_name(r['m'])} | {r['method']} | "
                  f"{r['meas']:.0f} | {r['pred']:.0f} | {100 * r['err']:.0f} % |")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""acct-pair-overlap-fit.py FILE [MIN_BYTES]: the pair duplex's factor D and
overlap c from `acct-hier-probe pair` output (issue 21, docs/performance.md
section 16 "Session 35").

Model (docs/models.md "Calibrated per partition"): one message of m bytes
each way at once between one pair costs its one-way time plus (D - 1) G
(m - c) for m > c: its first c bytes overlap the other way, the rest costs
D times. From the single-message shapes (BYTESx1) of at least MIN_BYTES
(default 256 KiB): G is the slope of the one-way medians over m, and
both - one = k (m - c) fitted by least squares, D = 1 + k / G. Prints every
shape's medians, the fit, and the model against each measured both-ways
median. Exit 2 on unusable input (fewer than two sizes, no slope)."""
import sys


def read(path):
    rows = {}
    with open(path) as f:
        for line in f:
            c = line.rstrip("\n").split("\t")
            if len(c) != 6 or not c[0].endswith("x1") or not c[0][:-2].isdigit():
                continue
            if c[1] == "one way, others spin":
                rows.setdefault(int(c[0][:-2]), {})["one"] = float(c[2])
            elif c[1] == "both ways, others spin":
                rows.setdefault(int(c[0][:-2]), {})["both"] = float(c[2])
    return sorted((m, r["one"], r["both"]) for m, r in rows.items() if len(r) == 2)


def slope(xs, ys):
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return (sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / den if den > 0 else 0.0), mx, my


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    lo = int(sys.argv[2]) if len(sys.argv) == 3 else 262144
    pts = read(sys.argv[1])
    big = [p for p in pts if p[0] >= lo]
    if len(big) < 2:
        print(f"{sys.argv[1]}: fewer than two single-message sizes of at least {lo} bytes "
              "with both patterns", file=sys.stderr)
        return 2
    g, _, _ = slope([m for m, _, _ in big], [a for _, a, _ in big])
    k, mx, my = slope([m for m, _, _ in big], [b - a for _, a, b in big])
    if not g > 0 or not k > 0:
        print(f"{sys.argv[1]}: no slope (one way {g}, extra {k}): nothing to fit", file=sys.stderr)
        return 2
    c = mx - my / k
    d = 1 + k / g
    print("bytes\tone_ms\tboth_ms\tratio\tmodel_both_ms\tmodel/measured")
    for m, a, b in pts:
        pred = a + k * max(0.0, m - c)
        print(f"{m}\t{a:.2f}\t{b:.2f}\t{b / a:.3f}\t{pred:.2f}\t{pred / b:.3f}")
    print(f"# fit over {len(big)} sizes >= {lo} bytes: G {g * 1e6:.2f} ns/B one way, "
          f"D = {d:.3f}, c = {c:.0f} bytes ({c / 1024:.0f} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

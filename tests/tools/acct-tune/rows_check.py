#!/usr/bin/env python3
"""rows_check: a collective decided by communicator size alone (gatherv,
scatterv, alltoallv; docs/acct-tune.md "v-collectives"), checked from an
acct-tune run's files, independently of acct-tune's code.

  rows_check.py RESULT RULES COLLECTIVES COMM_SIZES SIZES METHODS
      every METHODS (comma list, per collective ':'-joined, e.g.
      "native:linear:binomial,native:linear:pairwise") measured at every
      (comm size, size) cell; every rule of the collectives covers bytes
      [0, max]; the rule containing each measured comm size names the method
      with the least geometric mean over the sizes of median / the cell's
      best (a method measured at every size), up to float ties.
  rows_check.py --decision RULES COLLECTIVE P
      print the algorithm of COLLECTIVE's rule containing P ranks.
Exit status 0 when every check holds, 1 otherwise (each problem on stderr)."""
import math
import re
import sys

SIZE = re.compile(r"^(\d+)([KMG]?)$")


def size(text):
    m = SIZE.match(text)
    if not m:
        raise SystemExit(f"rows_check: not a size: {text}")
    return int(m.group(1)) * {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}[m.group(2)]


def measurements(path):
    """(coll, p, bytes, alg) -> median_us from a tuning result."""
    text = open(path, encoding="utf-8").read()
    out = {}
    for m in re.finditer(r"\{collective: (\w+), comm_size: (\d+), bytes: (\w+), "
                         r"algorithm: (\w+)([^}]*)\}", text, re.S):
        med = re.search(r"median_us: ([0-9.eE+-]+)", m.group(5))
        if med and "modelled: true" not in m.group(5):
            out[(m.group(1), int(m.group(2)), size(m.group(3)), m.group(4))] = float(med.group(1))
    return out


def rules(path):
    """coll -> [(pmin, pmax, bytes_text or None, alg)] from a rules file."""
    out, cur = {}, None
    for line in open(path, encoding="utf-8"):
        h = re.match(r"^  (\w+):\s*$", line)
        if h:
            cur = h.group(1)
            continue
        r = re.match(r"^    - \{comm_size: (?:\[(\d+), (\d+|max)\]|(\d+))(.*)\}\s*$", line)
        if r and cur is not None:
            b = re.search(r"bytes: \[([^]]*)\]", r.group(4))
            a = re.search(r"algorithm: (\w+)", r.group(4))
            pmin = int(r.group(1) or r.group(3))
            pmax = int(r.group(3)) if r.group(3) else (1 << 62 if r.group(2) == "max"
                                                       else int(r.group(2)))
            out.setdefault(cur, []).append(
                (pmin, pmax, b.group(1) if b else None, a.group(1) if a else None))
    return out


def decision(rl, coll, p):
    for pmin, pmax, _, alg in rl.get(coll, []):
        if pmin <= p <= pmax:
            return alg
    return None


def main(argv):
    if len(argv) == 5 and argv[1] == "--decision":
        print(decision(rules(argv[2]), argv[3], int(argv[4])) or "none")
        return 0
    if len(argv) != 7:
        print(__doc__, file=sys.stderr)
        return 2
    meas, rl = measurements(argv[1]), rules(argv[2])
    colls = argv[3].split(",")
    comms = [int(x) for x in argv[4].split(",")]
    sizes = [size(x) for x in argv[5].split(",")]
    methods = [m.split(":") for m in argv[6].split(",")]
    bad = 0

    def problem(msg):
        nonlocal bad
        bad += 1
        print(f"rows_check: {msg}", file=sys.stderr)

    for coll, mlist in zip(colls, methods):
        for pmin, pmax, b, alg in rl.get(coll, []):
            if b is not None and b.replace(" ", "") != "0,max":
                problem(f"{coll} [{pmin}, {pmax}]: bytes [{b}], not [0, max]")
        for p in comms:
            for s in sizes:
                for a in mlist:
                    if (coll, p, s, a) not in meas:
                        problem(f"{coll} {a} not measured on {p} ranks at {s} bytes")
            score = {}
            for a in mlist:
                logs = []
                for s in sizes:
                    t = meas.get((coll, p, s, a))
                    best = min((v for (c, q, z, _), v in meas.items()
                                if c == coll and q == p and z == s), default=None)
                    if t is None or best is None or best <= 0:
                        break
                    logs.append(math.log(t / best))
                else:
                    score[a] = math.exp(sum(logs) / len(logs))
            if not score:
                problem(f"{coll} on {p} ranks: no method measured at every size")
                continue
            least = min(score.values())
            near = sorted(a for a, v in score.items() if v <= least * (1 + 1e-9))
            got = decision(rl, coll, p)
            line = ", ".join(f"{a} {v:.3f}" for a, v in sorted(score.items()))
            print(f"rows_check: {coll} on {p} ranks: geometric mean ratios {line}; rules: {got}")
            if got not in near:
                problem(f"{coll} on {p} ranks: rules say {got}, the least geometric mean is "
                        f"{' or '.join(near)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

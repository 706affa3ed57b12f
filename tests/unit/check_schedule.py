#!/usr/bin/env python3
"""unit.schedule: every registered test is scheduled as tests/CMakeLists.txt
says (acct_schedule_tests): label mpi, cluster or packages -> RUN_SERIAL;
label daemon -> RESOURCE_LOCK acctd-tests. A test directory that forgets to
call acct_schedule_tests() would let an MPI job share the machine under
ctest -j (scripts/acct-test). Reads ctest --show-only=json-v1.
usage: check_schedule.py CTEST BUILD_DIR"""
import json
import subprocess
import sys


def main():
    ctest, build = sys.argv[1], sys.argv[2]
    out = subprocess.run([ctest, "--test-dir", build, "--show-only=json-v1"],
                         check=True, capture_output=True, text=True).stdout
    tests = json.loads(out)["tests"]
    bad = []
    for t in tests:
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        labels = set(props.get("LABELS", []))
        locks = set(props.get("RESOURCE_LOCK", []))
        if labels & {"mpi", "cluster", "packages"} and not props.get("RUN_SERIAL"):
            bad.append("%s: labels %s but not RUN_SERIAL" % (t["name"], sorted(labels)))
        elif "daemon" in labels and not props.get("RUN_SERIAL") and "acctd-tests" not in locks:
            bad.append("%s: label daemon but no RESOURCE_LOCK acctd-tests" % t["name"])
    for b in bad:
        print("FAIL:", b)
    print("%d tests, %d not scheduled as acct_schedule_tests() says" % (len(tests), len(bad)))
    return 1 if bad or not tests else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_sync_apply (corpus-sync-apply/): SYNC
replies as a primary sends them (docs/protocol.md), each behind the flag
byte of fuzz_sync_apply.c. The target's store holds version 1 of (eth, tcp),
active. Run from tests/fuzz: ./gen-sync-seeds.py"""
import hashlib
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from acct_wire import field, frame  # noqa: E402

RULES = """acct_rules: 1
provenance:
  partition: %s
  interconnect: %s
  version: %d
  source: manual
  created: "2026-11-2%dT10:00:00Z"
collectives:
  barrier:
    - {comm_size: [2, max], algorithm: dissemination}
  bcast:
    - {comm_size: [2, 8], bytes: [0, 8191], algorithm: binomial}
"""


def fnv(b):
    h = 0xcbf29ce484222325
    for c in b:
        h = ((h ^ c) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def version(vid, part="eth", iface="tcp", day=1, text=None, drop=None):
    text = (text or RULES % (part, iface, vid, day)).encode()
    f = [(22, vid), (20, part), (21, iface), (24, "manual"), (25, "2026-11-2%dT10:00:00Z" % day),
         (26, ""), (27, 0), (35, 0), (36, "import"), (29, fnv(text)), (28, text)]
    return field(41, b"".join(field(t, v) for t, v in f if t != drop))


def pair(vid, part="eth", iface="tcp", h=None):
    b = field(20, part) + field(21, iface) + field(22, vid)
    return field(40, b + (field(29, h) if h is not None else b""))


def reply(body, last=True, signed=False):
    if signed:
        body += field(84, "MUNGE:" + hashlib.sha256(body).hexdigest() + ":")
    return bytes([1 if last else 0]) + frame(0x91, 2, body)


v1 = (RULES % ("eth", "tcp", 1, 0)).encode()
seeds = {
    "same-v1": version(1, day=0, text=v1.decode()) + pair(1, h=fnv(v1)) + field(85, 0) + field(122, 1),
    "new-v2-active": version(2) + pair(2, h=fnv((RULES % ("eth", "tcp", 2, 1)).encode())) +
    field(85, 0) + field(122, 2),
    "diverged-v1": version(1, day=5) + pair(1) + field(85, 0) + field(122, 1),
    "more": version(2) + version(3, "ib", "verbs") + field(85, 1) + field(122, 400),
    "two-pairs": version(2, "ib", "verbs") + pair(1) + pair(2, "ib", "verbs") + field(85, 0) +
    field(122, 2),
    "missing-pair-version": pair(7, "eth", "tcp") + field(85, 0) + field(122, 7),
    "no-pairs": field(85, 0) + field(122, 1),
    "duplicate-pair": pair(1) + pair(1) + field(85, 0),
    "bad-hash": version(2)[:-8] + b"x" * 8 + field(85, 0),
    "no-text": version(2, drop=28) + field(85, 0),
    "wrong-pair-in-text": version(2, text=RULES % ("ib", "tcp", 2, 1)) + field(85, 0),
    "ahead": field(85, 0) + field(122, 0),
}
os.makedirs("corpus-sync-apply", exist_ok=True)
for name, body in seeds.items():
    with open("corpus-sync-apply/%s.bin" % name, "wb") as f:
        f.write(reply(body, last=name != "more", signed=name in ("new-v2-active", "two-pairs")))

#!/usr/bin/env python3
"""Attacker and probe for acctd's primary/follower authentication
(tests/daemon/210-fake-primary.sh, 220-follower-realigns.sh; docs/protocol.md
"TCP", docs/acctd.md "Security model"). Speaks the framing of docs/protocol.md.

  fake-primary.py serve ADDR:PORT MUNGE_SOCKET FORGED_RULES LOG
      A fake primary on ADDR:PORT (run as an unprivileged user). Every
      connection gets the next of these answers to its AUTH: its own
      credential with the payload a primary would send ("own-cred"), an
      AUTH reply without any proof ("no-proof", an older primary), and a
      forged SYNC reply at once ("forged-reply"). Logs one line per message
      received ("recv TYPE"), "cred CREDENTIAL" for every credential a
      follower sent, "asked-sync" when a follower asked for versions.
  fake-primary.py relay ADDR:PORT PRIMARY_ADDR:PORT MUNGE_SOCKET FORGED_RULES LOG
      On the network path: relays AUTH both ways between a follower and the
      real primary, answers the follower's SYNC itself with a forged
      version signed by its own credential, then sends the real primary a
      SAMPLES request of its own on the authenticated connection. Logs as
      above plus "primary-said ..." for what the real primary answered.
  fake-primary.py auth PRIMARY_ADDR:PORT MUNGE_SOCKET MODE [CRED_FILE]
      One handshake with a primary; prints its answer to the proof:
      MODE good (root's proof for this connection; the credential is saved
      in CRED_FILE), replay (the credential in CRED_FILE), other-port (a
      proof for another port), long-dest (a proof for a destination longer
      than any HOST:PORT, ending in the right port), extra-line (a proof
      with one more line),
      wrong-nonce (a proof bound to another nonce), mine (the correct proof,
      encoded by whoever runs this).
  fake-primary.py sync-unix SOCKET
      SYNC VERSION=0 on acctd's Unix socket; prints "VERSION ACTIVE" per
      version and "NEWEST N".
Exits after 60 s without a connection (serve, relay)."""
import hashlib
import os
import socket
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from acct_wire import field, frame  # noqa: E402

AUTH, SYNC, SAMPLES, REPLY, ERROR = 16, 17, 10, 0x80, 0xFF
T_ERR_MSG, T_PARTITION, T_INTERCONNECT, T_VERSION = 11, 20, 21, 22
T_SOURCE, T_CREATED, T_TUNING_RUN, T_ACTIVE, T_RULES_TEXT, T_HASH = 24, 25, 26, 27, 28, 29
T_PARENT, T_REASON, T_PAIR, T_VERSION_INFO, T_SAMPLE = 35, 36, 40, 41, 43
T_JOB, T_COLLECTIVE, T_COMM_SIZE, T_BYTES_BUCKET, T_ALGORITHM, T_COUNT = 50, 51, 52, 53, 54, 58
T_SUM_US, T_NODE, T_CRED, T_MORE, T_UID = 59, 83, 84, 85, 87
T_NONCE, T_SYNC_PROTO, T_NEWEST = 120, 121, 122
FORGED_ID = 999999999


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        k = s.recv(n - len(buf))
        if not k:
            raise EOFError
        buf += k
    return buf


def recv_msg(s):
    h = recv_exact(s, 16)
    n = int.from_bytes(h[8:12], "big")
    return h[5], int.from_bytes(h[12:16], "big"), recv_exact(s, n) if n else b""


def fields(body):
    out, i = [], 0
    while i + 6 <= len(body):
        tag, n = int.from_bytes(body[i:i + 2], "big"), int.from_bytes(body[i + 2:i + 6], "big")
        out.append((tag, body[i + 6:i + 6 + n]))
        i += 6 + n
    return out


def get(body, tag):
    for t, v in fields(body):
        if t == tag:
            return v
    return None


def munge(sock, payload):
    return subprocess.run(["munge", "-S", sock, "-s", payload], check=True,
                          capture_output=True, text=True).stdout.strip()


def fnv1a64(b):
    h = 0xcbf29ce484222325
    for c in b:
        h = ((h ^ c) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def hostport(s):
    h, p = s.rsplit(":", 1)
    return h, int(p)


def forged_reply(rid, follower_nonce, munge_sock, rules):
    """A SYNC reply with a forged version, signed as the primary would,
    but with this process's credential."""
    text = open(rules, "rb").read()
    part = iface = None
    for line in text.decode().splitlines():
        if line.strip().startswith("partition:"):
            part = line.split(":", 1)[1].strip()
        if line.strip().startswith("interconnect:"):
            iface = line.split(":", 1)[1].strip()
    info = b"".join([field(T_VERSION, FORGED_ID), field(T_PARTITION, part),
                     field(T_INTERCONNECT, iface), field(T_SOURCE, "manual"),
                     field(T_CREATED, "2026-11-21T10:00:00Z"), field(T_TUNING_RUN, ""),
                     field(T_ACTIVE, 1), field(T_PARENT, 0), field(T_REASON, "import"),
                     field(T_HASH, fnv1a64(text)), field(T_RULES_TEXT, text)])
    pair = field(T_PARTITION, part) + field(T_INTERCONNECT, iface) + field(T_VERSION, FORGED_ID)
    body = field(T_VERSION_INFO, info) + field(T_PAIR, pair) + field(T_MORE, 0) + \
        field(T_NEWEST, FORGED_ID)
    payload = "acctd primary reply 2\nfollower-nonce %s\nrequest %d\ntype %d\nsha256 %s\n" % (
        follower_nonce, rid, SYNC | REPLY, hashlib.sha256(body).hexdigest())
    return frame(SYNC | REPLY, rid, body + field(T_CRED, munge(munge_sock, payload)))


def listener(addr):
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(hostport(addr))
    ls.listen(8)
    ls.settimeout(60)
    return ls


def connections(addr, lg):
    """The connections accepted on addr ("listening" logged once it listens),
    until none comes for 60 s."""
    ls = listener(addr)
    lg.write("listening\n")
    while True:
        try:
            c, _ = ls.accept()
        except socket.timeout:
            return
        yield c


def serve(addr, munge_sock, rules, log):
    modes = ["own-cred", "no-proof", "forged-reply"]
    with open(log, "a", buffering=1) as lg:
        for n, c in enumerate(connections(addr, lg)):
            mode = modes[n % len(modes)]
            lg.write("connection %s\n" % mode)
            c.settimeout(5)
            nonce = "ab" * 32
            try:
                while True:
                    typ, rid, body = recv_logged(c, lg)
                    if typ == SYNC:
                        lg.write("asked-sync\n")
                    theirs = get(body, T_NONCE)
                    if typ == AUTH and theirs is not None and mode == "own-cred":
                        payload = "acctd primary proof 2\nfollower-nonce %s\nprimary-nonce %s\n" % (
                            theirs.decode(), nonce)
                        c.sendall(frame(AUTH | REPLY, rid, field(T_NODE, "fake") +
                                        field(T_SYNC_PROTO, 2) + field(T_NONCE, nonce) +
                                        field(T_CRED, munge(munge_sock, payload))))
                    elif typ == AUTH and mode == "no-proof":
                        c.sendall(frame(AUTH | REPLY, rid, field(T_NODE, "fake")))
                    elif typ == AUTH and theirs is not None:
                        c.sendall(forged_reply(rid, theirs.decode(), munge_sock, rules))
                    elif typ == SYNC:
                        c.sendall(forged_reply(rid, "", munge_sock, rules))
                    else:
                        c.sendall(frame(AUTH | REPLY, rid, field(T_NODE, "fake")))
            except (EOFError, OSError, subprocess.CalledProcessError) as e:
                lg.write("closed %s\n" % type(e).__name__)
            c.close()
    return 0


def recv_logged(c, lg):
    """The next message on c, logged: "recv TYPE", and "cred CREDENTIAL"."""
    typ, rid, body = recv_msg(c)
    lg.write("recv %d\n" % typ)
    cred = get(body, T_CRED)
    if cred is not None:
        lg.write("cred %s\n" % cred.decode())
    return typ, rid, body


def relay(addr, primary, munge_sock, rules, log):
    with open(log, "a", buffering=1) as lg:
        for c in connections(addr, lg):
            lg.write("connection relay\n")
            c.settimeout(5)
            p = socket.create_connection(hostport(primary), timeout=5)
            follower_nonce = primary_nonce = None
            try:
                while True:
                    typ, rid, body = recv_logged(c, lg)
                    if typ == AUTH:
                        if get(body, T_NONCE) is not None:
                            follower_nonce = get(body, T_NONCE).decode()
                        p.sendall(frame(typ, rid, body))
                        rt, rr, rb = recv_msg(p)
                        if get(rb, T_NONCE) is not None:
                            primary_nonce = get(rb, T_NONCE).decode()
                        lg.write("primary-said %d %s\n" % (rt, (get(rb, T_ERR_MSG) or b"").decode()))
                        c.sendall(frame(rt, rr, rb))
                        continue
                    lg.write("asked-sync\n")
                    c.sendall(forged_reply(rid, follower_nonce, munge_sock, rules))
                    # and a request of our own on the authenticated connection
                    sample = field(T_COLLECTIVE, "bcast") + field(T_COMM_SIZE, 4) + \
                        field(T_BYTES_BUCKET, 10) + field(T_ALGORITHM, "binomial") + \
                        field(T_COUNT, 5) + field(T_SUM_US, struct.pack(">d", 50.0))
                    body = field(T_JOB, "666.0") + field(T_PARTITION, "eth") + \
                        field(T_INTERCONNECT, "tcp-1g") + field(T_SAMPLE, sample) + field(T_UID, 0)
                    payload = ("acctd follower request 2\nprimary-nonce %s\nrequest %d\ntype %d\n"
                               "sha256 %s\n") % (primary_nonce, rid + 1000, SAMPLES,
                                                 hashlib.sha256(body).hexdigest())
                    p.sendall(frame(SAMPLES, rid + 1000, body + field(T_CRED, munge(munge_sock, payload))))
                    rt, rr, rb = recv_msg(p)
                    lg.write("primary-said %d %s\n" % (rt, (get(rb, T_ERR_MSG) or b"").decode()))
            except (EOFError, OSError, subprocess.CalledProcessError) as e:
                lg.write("closed %s\n" % type(e).__name__)
            c.close()
            p.close()
    return 0


def auth(primary, munge_sock, mode, cred_file=None):
    s = socket.create_connection(hostport(primary), timeout=10)
    mine = os.urandom(32).hex()
    s.sendall(frame(AUTH, 1, field(T_SYNC_PROTO, 2) + field(T_NONCE, mine)))
    typ, _, body = recv_msg(s)
    theirs = (get(body, T_NONCE) or b"").decode()
    to = primary
    if mode == "other-port":
        h, p = hostport(primary)
        to = "%s:%d" % (h, p + 1)
    if mode == "long-dest":
        h, p = hostport(primary)
        to = "%s:%d" % ("h" * 300, p)
    nonce = "cd" * 32 if mode == "wrong-nonce" else theirs
    payload = "acctd follower proof 2\nto %s\nprimary-nonce %s\nfollower-nonce %s\n" % (to, nonce, mine)
    if mode == "extra-line":
        payload += "uid 0\n"
    if mode == "replay":
        cred = open(cred_file).read().strip()
    else:
        cred = munge(munge_sock, payload)
    if mode == "good" and cred_file:
        with open(cred_file, "w") as f:
            f.write(cred + "\n")
    s.sendall(frame(AUTH, 2, field(T_SYNC_PROTO, 2) + field(T_CRED, cred)))
    typ, _, body = recv_msg(s)
    print("%s: %s %s" % (mode, "accepted" if typ == AUTH | REPLY else "refused",
                         (get(body, T_ERR_MSG) or b"").decode()))
    return 0


def sync_unix(path):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(10)
    s.connect(path)
    s.sendall(frame(SYNC, 7, field(T_VERSION, 0)))
    typ, _, body = recv_msg(s)
    for t, v in fields(body):
        if t == T_VERSION_INFO:
            print(int.from_bytes(get(v, T_VERSION), "big"), int.from_bytes(get(v, T_ACTIVE), "big"))
        if t == T_NEWEST:
            print("NEWEST", int.from_bytes(v, "big"))
    return 0


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    sys.exit({"serve": serve, "relay": relay, "auth": auth, "sync-unix": sync_unix}[cmd](*args))

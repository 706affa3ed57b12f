"""The framing of acctd's protocol (docs/protocol.md) for the Python test
helpers (tests/daemon/fake-primary.py, tests/fuzz/gen-sync-seeds.py): a
field (tag, length, value) and a frame (header, body)."""


def field(tag, val):
    """TAG LEN VALUE; an int is a big-endian u64, a str its UTF-8 bytes."""
    if isinstance(val, int):
        val = val.to_bytes(8, "big")
    elif isinstance(val, str):
        val = val.encode()
    return tag.to_bytes(2, "big") + len(val).to_bytes(4, "big") + val


def frame(typ, rid, body):
    """A message: magic, version 1, TYPE, body length, request id RID."""
    return b"ACCT" + bytes([1, typ, 0, 0]) + len(body).to_bytes(4, "big") + rid.to_bytes(4, "big") + body

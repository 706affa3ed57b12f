-- ACCT store, schema version 3: on a follower, samples waiting to be
-- forwarded to the primary (docs/acctd.md, "Multi-node"). Rows are deleted
-- once the primary acknowledged them (at-least-once delivery).

CREATE TABLE sample_outbox (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    job          TEXT NOT NULL,
    uid          INTEGER NOT NULL,
    partition    TEXT NOT NULL,
    interconnect TEXT NOT NULL,
    collective   TEXT NOT NULL,
    comm_size    INTEGER NOT NULL,
    bucket       INTEGER NOT NULL,
    algorithm    TEXT NOT NULL,
    segment      INTEGER NOT NULL,
    fanout       INTEGER NOT NULL,
    reorder      INTEGER NOT NULL,
    count        INTEGER NOT NULL,
    sum_us       REAL NOT NULL,
    sumsq_us     REAL NOT NULL,
    min_us       REAL NOT NULL,
    max_us       REAL NOT NULL
);
CREATE INDEX sample_outbox_key ON sample_outbox(job, uid, partition, interconnect, seq);

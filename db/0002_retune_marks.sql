-- ACCT store, schema version 2: cells whose live timings drifted away from
-- what their tuning run measured (docs/acctd.md, "Refinement").

CREATE TABLE retune_marks (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    at           TEXT NOT NULL,
    partition    TEXT NOT NULL,
    interconnect TEXT NOT NULL,
    collective   TEXT NOT NULL,
    comm_size    INTEGER NOT NULL,
    bucket       INTEGER NOT NULL,
    method       TEXT NOT NULL,            -- the active decision
    run_id       TEXT NOT NULL,            -- the tuning run it came from
    measured_us  REAL NOT NULL,            -- the run's median there
    live_us      REAL NOT NULL,            -- the jobs' mean since
    jobs         INTEGER NOT NULL,
    users        INTEGER NOT NULL
);
CREATE INDEX retune_marks_pair ON retune_marks(partition, interconnect, seq);

-- ACCT store, schema version 1 (docs/acctd.md, "The store").
-- Applied by acctd at start inside one transaction, then PRAGMA user_version = 1.

-- One acct-tune run, imported from its result file (docs/tuning-result.md).
CREATE TABLE tuning_runs (
    id             TEXT PRIMARY KEY,
    partition      TEXT NOT NULL,
    interconnect   TEXT NOT NULL,
    started        TEXT NOT NULL,
    finished       TEXT NOT NULL,
    complete       INTEGER NOT NULL,
    strategy       TEXT NOT NULL,
    source         TEXT NOT NULL,
    ranks          INTEGER NOT NULL,
    ranks_per_node INTEGER NOT NULL,
    hosts          TEXT NOT NULL,          -- comma-separated
    mpi_library    TEXT NOT NULL,
    slurm_job_id   TEXT NOT NULL,
    imported_at    TEXT NOT NULL,
    imported_by    INTEGER NOT NULL,       -- uid
    result_hash    INTEGER NOT NULL,
    result_text    TEXT NOT NULL           -- the file as imported
);

-- Every timed (or modelled) method of a run.
CREATE TABLE measurements (
    run_id     TEXT NOT NULL REFERENCES tuning_runs(id),
    collective TEXT NOT NULL,
    comm_size  INTEGER NOT NULL,
    bytes      INTEGER NOT NULL,
    method     TEXT NOT NULL,              -- acct_decision_format
    modelled   INTEGER NOT NULL,
    reps       INTEGER NOT NULL,
    median_us  REAL NOT NULL,
    q1_us      REAL NOT NULL,
    q3_us      REAL NOT NULL,
    min_us     REAL NOT NULL,
    max_us     REAL NOT NULL
);
CREATE INDEX measurements_run ON measurements(run_id, collective, comm_size, bytes);

-- pLogP / LogGP parameters of a run, when it measured them.
CREATE TABLE model_params (
    run_id        TEXT PRIMARY KEY REFERENCES tuning_runs(id),
    l_us          REAL NOT NULL,
    o_us          REAL NOT NULL,
    g_us          REAL NOT NULL,
    g_us_per_byte REAL NOT NULL
);

-- Decision versions: immutable once written (triggers below).
CREATE TABLE versions (
    id           INTEGER PRIMARY KEY,
    partition    TEXT NOT NULL,
    interconnect TEXT NOT NULL,
    source       TEXT NOT NULL,            -- measured | model | refined | manual
    created      TEXT NOT NULL,
    tuning_run   TEXT NOT NULL,            -- '' if none
    parent       INTEGER NOT NULL,         -- version refined from, 0 if none
    reason       TEXT NOT NULL,
    written_by   INTEGER NOT NULL,         -- uid, or -1 for acctd itself
    hash         INTEGER NOT NULL,         -- acct_rules_hash(rules_text)
    rules_text   TEXT NOT NULL             -- canonical rules file, provenance.version = id
);
CREATE INDEX versions_pair ON versions(partition, interconnect, id);
CREATE TRIGGER versions_no_update BEFORE UPDATE ON versions
BEGIN SELECT RAISE(ABORT, 'decision versions are immutable'); END;
CREATE TRIGGER versions_no_delete BEFORE DELETE ON versions
BEGIN SELECT RAISE(ABORT, 'decision versions are immutable'); END;

-- Activation history. The active version of a pair is its latest row with
-- undone = 0; ROLLBACK sets undone on that row (the only update allowed).
CREATE TABLE activations (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    partition    TEXT NOT NULL,
    interconnect TEXT NOT NULL,
    version      INTEGER NOT NULL REFERENCES versions(id),
    at           TEXT NOT NULL,
    reason       TEXT NOT NULL,
    uid          INTEGER NOT NULL,
    undone       INTEGER NOT NULL DEFAULT 0,
    undone_at    TEXT
);
CREATE INDEX activations_pair ON activations(partition, interconnect, undone, seq);
CREATE TRIGGER activations_append_only BEFORE UPDATE ON activations
WHEN NEW.seq != OLD.seq OR NEW.version != OLD.version OR NEW.partition != OLD.partition
  OR NEW.interconnect != OLD.interconnect OR NEW.at != OLD.at OR OLD.undone != 0
BEGIN SELECT RAISE(ABORT, 'activation history is append-only'); END;
CREATE TRIGGER activations_no_delete BEFORE DELETE ON activations
BEGIN SELECT RAISE(ABORT, 'activation history is append-only'); END;

-- Live-sample statistics: moments per (cell, method, job); uid from SO_PEERCRED.
CREATE TABLE sample_stats (
    partition    TEXT NOT NULL,
    interconnect TEXT NOT NULL,
    collective   TEXT NOT NULL,
    comm_size    INTEGER NOT NULL,
    bucket       INTEGER NOT NULL,
    algorithm    TEXT NOT NULL,
    segment      INTEGER NOT NULL,
    fanout       INTEGER NOT NULL,
    reorder      INTEGER NOT NULL,
    job          TEXT NOT NULL,
    uid          INTEGER NOT NULL,
    count        INTEGER NOT NULL,
    sum_us       REAL NOT NULL,
    sumsq_us     REAL NOT NULL,
    min_us       REAL NOT NULL,
    max_us       REAL NOT NULL,
    first_at     INTEGER NOT NULL,         -- unix seconds
    last_at      INTEGER NOT NULL,
    PRIMARY KEY (partition, interconnect, collective, comm_size, bucket,
                 algorithm, segment, fanout, reorder, job)
) WITHOUT ROWID;

-- Per-job quota bookkeeping: a job belongs to the first uid that sent it.
CREATE TABLE sample_jobs (
    job      TEXT PRIMARY KEY,
    uid      INTEGER NOT NULL,
    records  INTEGER NOT NULL,
    first_at INTEGER NOT NULL,
    last_at  INTEGER NOT NULL
) WITHOUT ROWID;

-- Policy overrides set with SET_POLICY (take precedence over policy files).
CREATE TABLE policies (
    partition TEXT PRIMARY KEY,
    text      TEXT NOT NULL,
    set_at    TEXT NOT NULL,
    set_by    INTEGER NOT NULL
);

-- What each refinement pass decided, kept for tracing.
CREATE TABLE refinements (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    at         TEXT NOT NULL,
    partition  TEXT NOT NULL,
    interconnect TEXT NOT NULL,
    collective TEXT NOT NULL,
    comm_size  INTEGER NOT NULL,
    bucket     INTEGER NOT NULL,
    old_method TEXT NOT NULL,
    new_method TEXT NOT NULL,
    old_mean_us REAL NOT NULL,
    new_mean_us REAL NOT NULL,
    p_value    REAL NOT NULL,
    jobs       INTEGER NOT NULL,
    users      INTEGER NOT NULL,
    version    INTEGER NOT NULL            -- the version written (0: none)
);

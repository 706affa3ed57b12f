-- ACCT store, schema version 4: job steps registered by spank_acct (root,
-- in slurmstepd) at step start (docs/acctd.md, "Job identity"). SAMPLES
-- are accepted only for a registered step of the sending uid and its
-- partition/interconnect (unless the partition's policy says otherwise).
-- Bounded: a row expires at `expires` (the registration lifetime, or a
-- short grace period after the step ended); acctd deletes expired rows and,
-- over max_registered_steps, the oldest.

CREATE TABLE registered_steps (
    job          TEXT PRIMARY KEY,     -- JOBID.STEPID as in ACCT_JOB
    uid          INTEGER NOT NULL,
    partition    TEXT NOT NULL,
    interconnect TEXT NOT NULL,
    registered   INTEGER NOT NULL,     -- unix seconds
    expires      INTEGER NOT NULL      -- unix seconds
) WITHOUT ROWID;
CREATE INDEX registered_steps_age ON registered_steps(registered);

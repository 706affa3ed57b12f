-- ACCT store, schema version 5 (issue 21): a tuning run's model measured
-- per level, when its layout had an intra-node and an inter-node pair: the
-- result's model.intra, model.inter (LogGP) and model.nic (nic_pairs 0:
-- not measured). GET_MODEL returns them with model_params'.

CREATE TABLE model_levels (
    run_id                TEXT PRIMARY KEY REFERENCES tuning_runs(id),
    intra_l_us            REAL NOT NULL,
    intra_o_us            REAL NOT NULL,
    intra_g_us            REAL NOT NULL,
    intra_g_us_per_byte   REAL NOT NULL,
    inter_l_us            REAL NOT NULL,
    inter_o_us            REAL NOT NULL,
    inter_g_us            REAL NOT NULL,
    inter_g_us_per_byte   REAL NOT NULL,
    nic_pairs             INTEGER NOT NULL,
    nic_gap_factor        REAL NOT NULL
);

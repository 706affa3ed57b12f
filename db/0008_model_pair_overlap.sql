-- ACCT store, schema version 8 (issue 21): the pair duplex's overlap of a
-- run's levels (the result's model.nic.pair_duplex_overlap_bytes: a
-- message's first bytes that overlap the other way, the pair-duplex factor
-- applying to the rest). Runs stored before have 0 (the factor on the
-- whole message), as results written before it.

ALTER TABLE model_levels ADD COLUMN pair_duplex_overlap_bytes REAL NOT NULL DEFAULT 0;

-- ACCT store, schema version 7 (issue 21): the pair-duplex factor of a
-- run's levels (the result's model.nic.pair_duplex_factor: one inter-node
-- pair exchanging both ways at once against one way). Runs stored before
-- have 0 (not measured), as results written before it.

ALTER TABLE model_levels ADD COLUMN pair_duplex_factor REAL NOT NULL DEFAULT 0;

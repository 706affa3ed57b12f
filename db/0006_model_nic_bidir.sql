-- ACCT store, schema version 6 (issue 21): the two-way NIC factor of a
-- run's levels (the result's model.nic.bidir_pairs, bidir_gap_factor: its
-- pairs exchanging both ways at once against one pair one way). Runs stored
-- before have 0 (not measured), as results written before it.

ALTER TABLE model_levels ADD COLUMN nic_bidir_pairs INTEGER NOT NULL DEFAULT 0;
ALTER TABLE model_levels ADD COLUMN nic_bidir_gap_factor REAL NOT NULL DEFAULT 0;

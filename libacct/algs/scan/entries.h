/* Registry entries of scan (included inside the table in registry.c). */
    ACCT_NATIVE_ENTRY(scan),
    {.coll = ACCT_COLL_scan, .name = "linear", .build = acct_scan_linear,
     .flags = ACCT_ALG_SEGMENTED, .cost = acct_scan_linear_cost,
     .ompi = {1, "linear", false},
     .description = "chain 0 -> 1 -> ... -> P-1: each rank adds its data to the prefix it receives and forwards it, segments pipelined"},
    {.coll = ACCT_COLL_scan, .name = "recursive_doubling", .build = acct_scan_recursive_doubling,
     .cost = acct_scan_recursive_doubling_cost, .ompi = {2, "recursive_doubling", true},
     .description = "ceil(log2 P) exchanges of a partial result with rank ^ 2^k; the upper partner puts the partial it receives in front of its result (any size)"},

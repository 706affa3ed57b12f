/* Registry entries of exscan (included inside the table in registry.c). */
    ACCT_NATIVE_ENTRY(exscan),
    {.coll = ACCT_COLL_exscan, .name = "linear", .build = acct_exscan_linear,
     .flags = ACCT_ALG_SEGMENTED, .cost = acct_exscan_linear_cost,
     .ompi = {1, "linear", false},
     .description = "chain 0 -> 1 -> ... -> P-1: each rank keeps the prefix it receives and forwards it with its data added, segments pipelined"},
    {.coll = ACCT_COLL_exscan, .name = "recursive_doubling", .build = acct_exscan_recursive_doubling,
     .cost = acct_exscan_recursive_doubling_cost, .ompi = {2, "recursive_doubling", true},
     .description = "ceil(log2 P) exchanges of a partial result with rank ^ 2^k; the upper partner puts the partial it receives in front of its result (any size)"},

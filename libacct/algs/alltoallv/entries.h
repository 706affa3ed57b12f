/* Registry entries of alltoallv (included inside the table in registry.c). */
    ACCT_NATIVE_ENTRY(alltoallv),
    {.coll = ACCT_COLL_alltoallv, .name = "linear", .build = acct_alltoallv_linear,
     .cost = acct_alltoallv_linear_cost, .ompi = {1, "basic_linear", true},
     .description = "every rank posts all its sends and receives at once (direct)"},
    {.coll = ACCT_COLL_alltoallv, .name = "pairwise", .build = acct_alltoallv_pairwise,
     .cost = acct_alltoallv_pairwise_cost, .ompi = {2, "pairwise", true},
     .description = "P-1 steps, in step k send to r+k and receive from r-k"},

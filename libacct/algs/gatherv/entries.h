/* Registry entries of gatherv (included inside the table in registry.c). */
    ACCT_NATIVE_ENTRY(gatherv),
    {.coll = ACCT_COLL_gatherv, .name = "linear", .build = acct_gatherv_linear,
     .cost = acct_gatherv_linear_cost, .ompi = ACCT_ALG_OMPI_NONE,
     .description = "every rank sends its block straight to the root, which receives them all in one round"},
    {.coll = ACCT_COLL_gatherv, .name = "binomial", .build = acct_gatherv_binomial,
     .cost = acct_gatherv_binomial_cost, .flags = ACCT_ALG_ALL_COUNTS, .ompi = ACCT_ALG_OMPI_NONE,
     .description = "binomial tree, each subtree's blocks packed into one message to its parent; the root's counts broadcast first"},

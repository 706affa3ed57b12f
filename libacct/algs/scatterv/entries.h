/* Registry entries of scatterv (included inside the table in registry.c). */
    ACCT_NATIVE_ENTRY(scatterv),
    {.coll = ACCT_COLL_scatterv, .name = "linear", .build = acct_scatterv_linear,
     .cost = acct_scatterv_linear_cost, .ompi = ACCT_ALG_OMPI_NONE,
     .description = "the root sends each rank its block directly, all in one round"},
    {.coll = ACCT_COLL_scatterv, .name = "binomial", .build = acct_scatterv_binomial,
     .cost = acct_scatterv_binomial_cost, .flags = ACCT_ALG_ALL_COUNTS, .ompi = ACCT_ALG_OMPI_NONE,
     .description = "binomial tree, each subtree's blocks packed into one message from its parent; the root's counts broadcast first"},

/* Registry entries of scatterv (included inside the table in registry.c). */
    ACCT_NATIVE_ENTRY(scatterv),
    {.coll = ACCT_COLL_scatterv, .name = "linear", .build = acct_scatterv_linear,
     .cost = acct_scatterv_linear_cost, .ompi = ACCT_ALG_OMPI_NONE,
     .description = "the root sends each rank its block directly, all in one round"},

/* The runtime's implementation of each wrapped collective (internal):
 * decide, build the schedule, run it — or call the native collective. */
#ifndef ACCT_RT_COLL_H
#define ACCT_RT_COLL_H

#include "acct/mpi_wrap.h"

#define ACCT_X_DECL(Name, lower, params, args) int rt_impl_##Name params;
ACCT_WRAPPED_CALLS(ACCT_X_DECL)
#undef ACCT_X_DECL

#endif

/* Exploration: the agreed options and the report's counts (explore.h). */
#include "explore.h"

#include "acct/log.h"

struct rt_explore rt_explore;
atomic_ullong rt_explored[ACCT_COLL_COUNT];

void rt_explore_init(const struct acct_rules *rules)
{
    rt_explore = (struct rt_explore){0};
    for (int c = 0; c < ACCT_COLL_COUNT; c++)
        atomic_store(&rt_explored[c], 0);
    if (rules == NULL || !(rules->opts.explore > 0))
        return;
    rt_explore.on = true;
    rt_explore.seed = rules->opts.explore_seed;
    rt_explore.period = acct_explore_period(rules->opts.explore);
    acct_debug("exploration on: one call in %llu runs its rule's runner-up (seed %llu)",
               (unsigned long long)rt_explore.period, (unsigned long long)rt_explore.seed);
}

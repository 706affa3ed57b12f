/* Exploration (internal; docs/samples.md, "Exploration"): on a small,
 * bounded fraction of the calls whose rule names a runner-up, run the
 * runner-up instead, so that the samples sent to acctd time it too and
 * refinement can learn whether it is better.
 *
 * Which calls explore is a pure function of the agreed rules' options
 * (explore, explore_seed) and the communicator's count of such calls per
 * collective: every rank counts the same calls (they are decided from the
 * call's shape only) and so explores the same ones (docs/architecture.md rule 1). No
 * clock, no per-node state, no random number generator.
 *
 * Bounded: with fraction f, the counted calls are cut into blocks of
 * N = ceil(1/f) calls, and exactly one call of each block explores, at a
 * position drawn from (seed, collective, block). So at most 1 call in N, never
 * more than f of the calls (f <= ACCT_EXPLORE_MAX = 5 %), and a job of fewer
 * than N such calls explores at most once. */
#ifndef ACCT_RT_EXPLORE_H
#define ACCT_RT_EXPLORE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "acct/coll.h"
#include "acct/rules.h"

struct rt_explore {
    bool on;          /* options.explore > 0 in the agreed rules */
    uint64_t seed;    /* options.explore_seed */
    uint64_t period;  /* N = ceil(1 / explore): one call in N explores */
};

extern struct rt_explore rt_explore;

/* Calls that ran their runner-up in this process, per collective (report). */
extern atomic_ullong rt_explored[ACCT_COLL_COUNT];

/* From the agreed rules (NULL: off). */
void rt_explore_init(const struct acct_rules *rules);

/* N for a fraction f in (0, 1]: the smallest N with 1/N <= f. 0 for f <= 0. */
static inline uint64_t acct_explore_period(double f)
{
    if (!(f > 0))
        return 0;
    if (f >= 1)
        return 1;
    /* 1/f in double may land just above an integer (1/0.01): start from
     * the integer below and step to the smallest N with 1/N <= f. */
    uint64_t n = (uint64_t)(1.0 / f);
    if (n < 1)
        n = 1;
    while (n > 1 && 1.0 / (double)(n - 1) <= f)
        n--;
    while (1.0 / (double)n > f)
        n++;
    return n;
}

/* splitmix64's finaliser: a well-mixed 64-bit function of x. */
static inline uint64_t acct_explore_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Does call number `counter` (from 0) of collective coll explore? Pure:
 * (seed, period, coll, counter) only. period 0 never explores. */
static inline bool acct_explore_pick(uint64_t seed, uint64_t period, int coll, uint64_t counter)
{
    if (period == 0)
        return false;
    uint64_t block = counter / period;
    uint64_t h = acct_explore_mix(seed ^ acct_explore_mix(block * ACCT_COLL_COUNT + (uint64_t)coll));
    return counter % period == h % period;
}

#endif

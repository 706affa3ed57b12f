/* Agreement at MPI_Init (internal): every rank must use rank 0's rules and
 * ACCT_FORCE, or every rank must run natively (docs/architecture.md rules 1 and 2).
 *
 * No MPI message is used: some ranks of a job may run without libacct
 * (opted out, library missing on a node), and any extra collective or
 * message on a user communicator would then hang or mismatch the job's own.
 * Instead, before PMPI_Init each rank whose runtime loaded publishes a key
 * in the PMIx store, which MPI_Init's modex fence (Open MPI: collect data,
 * not async) distributes to every rank:
 *     acct.v1     "<abi> <rules hash> <force hash> <nb>"   every ACCT rank
 *                 (nb: 1 if its runtime can run non-blocking collectives,
 *                 nb.h; they run through ACCT only if every rank's can)
 *     acct.rules  rank 0's rules file (if at most ACCT_AGREE_MAX_CONTENT)
 *     acct.force  rank 0's ACCT_FORCE
 * After PMPI_Init every rank reads every rank's acct.v1 and evaluates the
 * same predicate: ACCT is active iff every rank published, all with this
 * ABI, and each rank either has rank 0's rules hash or can fetch rank 0's
 * content. Since the inputs are the same on every rank, so is the answer. */
#ifndef ACCT_RT_AGREE_H
#define ACCT_RT_AGREE_H

#include <stddef.h>
#include <stdint.h>

#define ACCT_AGREE_MAX_CONTENT (64 * 1024)

struct rt_agreed {
    int active;    /* 1: use rules/force below on every rank */
    char *rules;   /* rank 0's rules content (NUL-terminated) or NULL; owned */
    size_t rules_len;
    char *force;   /* rank 0's ACCT_FORCE or NULL; owned */
    int nonblocking; /* 1: every rank can run non-blocking collectives (nb.h) */
    const char *why; /* when !active: static reason */
};

/* Before PMPI_Init: read this rank's ACCT_RULES and ACCT_FORCE and publish
 * them. Returns 0, or -1 if PMIx is unavailable (then post_init decides
 * from the world size alone). */
int rt_agree_pre_init(int nonblocking);

/* After PMPI_Init. Fills *out (free with rt_agree_free) and releases what
 * pre_init held. */
void rt_agree_post_init(int world_rank, int world_size, struct rt_agreed *out);

void rt_agree_free(struct rt_agreed *a);

/* FNV-1a 64 of a byte string (0 for none). */
uint64_t rt_hash(const void *data, size_t len);

#endif

/* The tool API of libacct.so: for programs that measure ACCT's methods
 * (acct-tune, benchmarks). Link libacct.so ahead of the MPI library (or
 * preload it); these functions are exported next to the MPI_* wrappers.
 *
 * Not for applications: a job's methods come from the rules every rank
 * agreed on at MPI_Init (docs/architecture.md rule 1). A tool that changes them takes
 * that duty over: every rank of every communicator it uses must make the
 * same acct_tool_force() calls in the same order, between collectives, and
 * no other thread may be inside a collective at the time. */
#ifndef ACCT_TOOL_H
#define ACCT_TOOL_H

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when ACCT is active in this process (after MPI_Init: the runtime is
 * loaded and every rank agreed), 0 otherwise (ACCT_DISABLE, no runtime,
 * agreement failed, before MPI_Init or after MPI_Finalize). */
int acct_tool_active(void);

/* Replace the forced methods of this process with spec, in ACCT_FORCE
 * syntax ("bcast=binomial:8K,allreduce=ring"; NULL or "" clears: the rules,
 * then native, decide again). All or nothing: returns 0, or -1 when ACCT
 * is not active or spec is invalid (then nothing changes). A forced
 * algorithm whose restrictions do not hold for a call runs natively, as
 * with ACCT_FORCE. */
int acct_tool_force(const char *spec);

#ifdef __cplusplus
}
#endif

#endif

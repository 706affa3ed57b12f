/* ACCT_REPORT: what libacct did in this job, written by rank 0 at
 * MPI_Finalize (internal; docs/user-guide.md, "The report file"). */
#ifndef ACCT_RT_REPORT_H
#define ACCT_RT_REPORT_H

#include <stdbool.h>

/* The job as the runtime saw it at MPI_Init. */
struct rt_report_job {
    bool active;              /* ACCT algorithms could run (the ranks agreed) */
    const char *inactive_why; /* static reason when !active */
    int world_size;
    int thread_level;
};

/* Write the report to path (the counts of account.h, the decisions'
 * provenance of decide.h); returns 0 or -1 after a warning. */
int rt_report_write(const char *path, const struct rt_report_job *job);

#endif

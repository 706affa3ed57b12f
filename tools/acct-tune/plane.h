/* The combination's decisions (plane.c): what each cell of one
 * collective's plane of (communicator size, message size) became, and the
 * callbacks of tune_plane_search (search.h) that decide it. Shared by
 * acct-tune (--strategy plane, experiments over MPI) and acct-tune-replay
 * (the same walk answered from an exhaustive run's journal), so both run
 * the very same decisions. No MPI.
 *
 * The caller supplies the cells: open(row, col) makes that cell the
 * current one (its methods, its segment candidates and a cost oracle that
 * measures there); plane.c runs the full searches (tune_search, warm-started
 * from a neighbour's optimum, with --keep only the methods that were close
 * there), the verifications (the neighbours' two decisions measured, each
 * with its segment scaled to the message) and the interpolations (the
 * method of two equal neighbours, the segment log-interpolated in
 * segment/message), and with --check the measurement of every interpolated
 * or verified decision against its neighbours' log-interpolated time. */
#ifndef ACCT_TUNE_PLANE_H
#define ACCT_TUNE_PLANE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acct/coll.h"
#include "acct/dmap.h"
#include "search.h"
#include "tune.h"

#define TUNE_PLANE_KEPT 32 /* methods a cell remembers for --keep */

/* One cell as the caller opens it. */
struct tune_plane_point {
    const struct tune_method *methods; /* tune_methods(coll, p) */
    size_t nm;
    const uint64_t *segs;              /* tune_segments(m, ...) */
    size_t nsegs;
    struct tune_oracle oracle;         /* measure (required), model, ready; proxy unused */
};

struct tune_plane_src {
    void *ctx;
    enum acct_coll_id coll;
    size_t nrows;
    const size_t *ncols;               /* per row: message sizes m[0..ncols-1] */
    const int *p;                      /* per row: communicator size, ascending */
    const bool *nodes;                 /* per row: tune_methods' nodes (NULL: none) */
    const uint64_t *m;                 /* per column: message bytes, ascending */
    /* Make (row, col) the current cell; fill *pt. TUNE_OK or an error. */
    int (*open)(void *ctx, size_t row, size_t col, struct tune_plane_point *pt);
    /* Done with the current cell (optional). */
    void (*close)(void *ctx, size_t row, size_t col);
};

struct tune_plane_opts {
    size_t row_stride, col_stride;     /* anchors (>= 1) */
    double keep;                       /* < 0: every method; else within (1 + keep) of the hint's best */
    double check;                      /* > 0: measure interpolated/verified decisions (see above) */
    struct tune_params params;         /* the full searches' (smgd or hybrid) */
};

/* What a cell became. */
struct tune_plane_cell {
    enum tune_cell_kind kind;
    bool set;
    struct acct_decision d;            /* with its segment */
    double cost;                       /* measured there; interpolated cells without
                                        * --check: the neighbours' log-interpolated time */
    bool stopped;                      /* a search of it was stopped by the oracle (budget) */
    size_t nkept;
    struct acct_decision kept[TUNE_PLANE_KEPT];
};

/* Walk the plane. cells[] has nrows * maxcols entries (maxcols = the
 * largest ncols), indexed row * maxcols + col. Returns TUNE_OK (also when
 * a budget stopped it: see each cell's kind and stopped), TUNE_EINVAL,
 * TUNE_ENOMEM or the source's / oracle's error. */
int tune_plane_walk(const struct tune_plane_src *src, const struct tune_plane_opts *o,
                    struct tune_plane_cell *cells);

/* maxcols of a source. */
size_t tune_plane_maxcols(const struct tune_plane_src *src);

#endif

/* Decisions: exact decision maps, quadtrees, penalty statistics and exports
 * (no MPI needed). Reference: docs/decisions.md. Library: acct_decision
 * (libacct/decision/), linked to acct_formats.
 *
 * The pipeline, per collective (Pjesivac-Grbovic et al., "MPI collective
 * algorithm selection and quadtree encoding", Parallel Computing 2007):
 *
 *   tuning result points --acct_dmap_from_points--> exact decision map
 *       (grid of the measured communicator sizes x message sizes; per cell
 *        the median time of every method measured there and the best one)
 *   exact map --acct_qt_build(max depth, accuracy threshold)--> quadtree
 *   exact map or quadtree --acct_dmap_rules / acct_qt_rules--> rules
 *       (rectangles in (comm_size, bytes) space that tile the plane)
 *   penalty of a quadtree (or of any rules) against the exact map
 *       --acct_qt_stats / acct_penalty_rules--> the paper's Tables 1-2
 *   rules --acct_export_ompi--> Open MPI 4.1.4 coll/tuned dynamic rules file
 *   rules --acct_export_c--> C source of decision functions
 *
 * Cells and value space. A map has ncomm communicator sizes comm[0] <
 * comm[1] < ... and nbytes message sizes bytes[0] < ... (the measured ones).
 * Cell (i, j) stands for the rectangle [comm_lo[i], comm_hi[i]] x
 * [bytes_lo[j], bytes_hi[j]] of value space: the boundary between two
 * neighbouring measured sizes a < b is their geometric midpoint, floor(
 * sqrt(a*b)), which belongs to the lower cell; the first column starts at
 * 0 and the last ends at UINT64_MAX ("max"), but the rows span only the
 * measured communicator sizes: the first starts at the smallest, the last
 * ends at the largest. No decision for smaller or larger communicators
 * (docs/architecture.md rule 6): acct_qt_lookup gives NULL there, and
 * acct_extrap_rules (acct/extrap.h) adds model or native regions. Within
 * that, the cells of a map tile the plane without overlaps.
 *
 * Every function that allocates returns ACCT_RULES_OK (0) or
 * ACCT_RULES_ENOMEM / ACCT_RULES_EINVAL (acct/diag.h); invalid input is
 * described in a struct acct_diags when one is passed. Nothing asserts on
 * input. */
#ifndef ACCT_DMAP_H
#define ACCT_DMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "acct/result.h"
#include "acct/rules.h"

/* Limits (untrusted result files feed these). */
#define ACCT_DMAP_MAX_SIZES 4096   /* distinct comm sizes, distinct byte sizes */
#define ACCT_DMAP_MAX_METHODS 4096 /* distinct methods of one collective */
#define ACCT_DMAP_MAX_CELLS (1u << 22) /* ncomm * nbytes * nmethods */

/* ---- exact decision map --------------------------------------------------- */

struct acct_dmap {
    enum acct_coll_id coll;
    size_t ncomm, nbytes;          /* grid dimensions, >= 1 each */
    int *comm;                     /* ncomm measured communicator sizes, ascending */
    uint64_t *bytes;               /* nbytes measured message sizes, ascending */
    int *comm_lo, *comm_hi;        /* value-space extent of each row (see above) */
    uint64_t *bytes_lo, *bytes_hi; /* value-space extent of each column */
    size_t nmethods;
    struct acct_decision *methods; /* distinct methods, in order of first appearance */
    double *time;   /* [(i * nbytes + j) * nmethods + k]: median us; < 0 = not measured */
    int32_t *best;  /* [i * nbytes + j]: method index with the lowest median time
                     * (ties: the lower index); cells without any measurement
                     * (holes) take the decision of the nearest measured cell,
                     * see acct_dmap_finish */
    bool *measured; /* [i * nbytes + j]: at least one method was measured there */
    int32_t *decided; /* [i * nbytes + j]: a decision given without a measurement
                       * (acct_dmap_decide), -1 = none */
};

/* An empty map of the given grid and methods (every time "not measured").
 * comm and bytes must be strictly ascending (comm >= 1); methods must be
 * valid decisions of coll (alg of that collective). Copies everything. */
int acct_dmap_create(enum acct_coll_id coll, const int *comm, size_t ncomm,
                     const uint64_t *bytes, size_t nbytes,
                     const struct acct_decision *methods, size_t nmethods,
                     struct acct_dmap **out, struct acct_diags *diags);

/* Record the median time of method k at cell (i, j); indices are checked
 * (returns ACCT_RULES_EINVAL out of range or for a time that is negative
 * or not finite). A later value for the same (i, j, k) replaces the former. */
int acct_dmap_set(struct acct_dmap *m, size_t i, size_t j, size_t k, double median_us);

/* Give cell (i, j) method k as its decision without a measurement (a
 * tuner's interpolation: acct-tune --strategy plane). A cell with
 * measurements keeps its fastest one; a decided cell is no hole. Returns
 * ACCT_RULES_EINVAL out of range. */
int acct_dmap_decide(struct acct_dmap *m, size_t i, size_t j, size_t k);

/* Compute best[] and fill holes: a cell without measurements (or a
 * decision of acct_dmap_decide) takes the
 * decision of the nearest measured cell in index space (Manhattan distance,
 * by a breadth-first search from all measured cells in row-major order,
 * neighbours visited up, left, right, down; the first to reach a hole
 * wins). Returns ACCT_RULES_EINVAL if no cell is measured at all, or
 * ACCT_RULES_ENOMEM. Call it after the last acct_dmap_set. */
int acct_dmap_finish(struct acct_dmap *m, struct acct_diags *diags);

/* The exact map of collective coll from a tuning result's points (others
 * are skipped): the grid is every distinct comm_size x bytes among them,
 * methods every distinct decision. *out is NULL (and ACCT_RULES_OK is
 * returned) if no point is of coll. */
int acct_dmap_from_points(const struct acct_result_point *pts, size_t npts,
                          enum acct_coll_id coll, struct acct_dmap **out,
                          struct acct_diags *diags);

/* The same with decisions without measurements: dec[0..ndec-1] (their
 * coll, comm_size, bytes and d; times ignored) join the grid and the
 * methods and are given with acct_dmap_decide. */
int acct_dmap_from_points_decided(const struct acct_result_point *pts, size_t npts,
                                  const struct acct_result_point *dec, size_t ndec,
                                  enum acct_coll_id coll, struct acct_dmap **out,
                                  struct acct_diags *diags);

void acct_dmap_free(struct acct_dmap *m);

/* Row / column of a value (the cell whose extent contains it; a communicator
 * size outside the measured ones gets the nearest row). */
size_t acct_dmap_row(const struct acct_dmap *m, int comm_size);
size_t acct_dmap_col(const struct acct_dmap *m, uint64_t bytes);

/* A synthetic map for tests and benchmarks: ncomm communicator sizes (2, 3,
 * 4, 6, 8, 12, ...) x nbytes message sizes (8 B, 16 B, ... doubling) x
 * nmethods (1 to 7) methods of coll (bcast or allreduce: algorithms without
 * size restrictions). The grid is cut into random rectangles ("blocks")
 * that do not follow the quadtree's halving; each block has a winning
 * method, every other method costs 5% to 200% more there (per block and
 * method), every cell gets +-2% noise and about 3% of the cells a spike (a
 * different winner, as measurement anomalies in the paper). Deterministic
 * for a seed. */
int acct_synth_map(enum acct_coll_id coll, size_t ncomm, size_t nbytes, size_t nmethods,
                   unsigned seed, struct acct_dmap **out);

/* ---- quadtree ---------------------------------------------------------------
 *
 * Built over the cell grid as in the paper, without padding the map to
 * 2^k x 2^k: a node covers rows [i0, i1) x columns [j0, j1); an internal
 * node halves each range of more than one index (the first half gets the
 * larger part, ceil(n/2)), so it has 4 children (NW, NE, SW, SE = low/high
 * comm x low/high bytes), or 2 when one range is a single index. Depth of
 * the root is 0; the exact tree of an n x m map has depth at most
 * ceil(log2(max(n, m))).
 *
 * A node becomes a leaf when (a) one method is the best in every cell, or
 * (b) its depth is max_depth, or (c) the share of cells whose best is the
 * node's majority method is >= accuracy percent. Its decision is the
 * majority method (ties: the lower method index) or, with leaf_choice
 * ACCT_QT_LEAF_MIN_PENALTY, the method with the lowest sum of relative
 * penalties over the node's measured cells among those measured in all of
 * them (majority if none is). */

#define ACCT_QT_UNLIMITED (-1)

enum acct_qt_leaf_choice {
    ACCT_QT_LEAF_MAJORITY = 0,  /* the paper's colour majority */
    ACCT_QT_LEAF_MIN_PENALTY,   /* least total relative penalty */
};

struct acct_qt_params {
    int max_depth;          /* >= 0, or ACCT_QT_UNLIMITED */
    double accuracy;        /* percent, (0, 100]; 100 = only uniform blocks */
    enum acct_qt_leaf_choice leaf_choice;
};

#define ACCT_QT_PARAMS_EXACT { ACCT_QT_UNLIMITED, 100.0, ACCT_QT_LEAF_MAJORITY }

struct acct_qt_node {
    uint32_t i0, i1, j0, j1; /* rows [i0, i1) x columns [j0, j1) */
    uint32_t imid, jmid;     /* internal: first row / column of the second half
                              * (== i0 / j0 when that range is not split) */
    int32_t child;           /* index of the first child in nodes[], -1 for a leaf;
                              * children are consecutive: NW, NE, SW, SE (without
                              * the halves that do not exist) */
    uint8_t nchild;          /* 0, 2 or 4 */
    uint8_t depth;
    int32_t method;          /* leaf: index into the map's methods */
};

struct acct_quadtree {
    enum acct_coll_id coll;
    size_t nnodes, nleaves;
    struct acct_qt_node *nodes;    /* nodes[0] is the root */
    /* A copy of the map's grid, so lookups need no map. */
    size_t ncomm, nbytes;
    int comm_lo;                   /* lower bound of the first row: the smallest measured size */
    int *comm_hi;                  /* upper bound of each row's extent */
    uint64_t *bytes_hi;            /* upper bound of each column's extent */
    size_t nmethods;
    struct acct_decision *methods; /* copy of the map's methods */
    struct acct_qt_params params;
};

/* Build the quadtree of m under params (checked: EINVAL with a message for
 * max_depth < -1 or > 60, or accuracy outside (0, 100]). */
int acct_qt_build(const struct acct_dmap *m, const struct acct_qt_params *params,
                  struct acct_quadtree **out, struct acct_diags *diags);

void acct_qt_free(struct acct_quadtree *qt);

/* The in-memory decision: walks from the root comparing comm_size and bytes
 * with the split values. NULL beyond the largest measured communicator size
 * (no decision there: native). */
const struct acct_decision *acct_qt_lookup(const struct acct_quadtree *qt, int comm_size,
                                           uint64_t bytes);

/* Method index of every cell (ncomm * nbytes, row-major) under the tree. */
int acct_qt_cells(const struct acct_quadtree *qt, int32_t *out);

/* ---- collectives decided from the communicator size alone ---------------
 *
 * gatherv, scatterv and alltoallv (acct_coll_bytes_alike false: their ranks
 * do not know a call's bytes alike, docs/rules.md) take one decision per
 * communicator size, so a map measured over message sizes (the uniform
 * call, docs/acct-tune.md "v-collectives") collapses its bytes dimension:
 * row i's decision is the method k, among those measured at every measured
 * cell of the row, with the least geometric mean over those cells of
 * t(k) / t(best of the cell) -- the method whose expected slowdown against
 * the per-size best is least when every measured size is equally likely
 * (ties: the lower method index). A row where no method was measured at
 * all its measured cells (a strategy that measured different methods at
 * different sizes) takes the method best at most of its cells. Fills
 * cells[] (ncomm * nbytes, every column of a row alike) and, when not
 * NULL, score[] (ncomm): the chosen method's geometric mean ratio, NAN for a
 * row decided by the majority. Returns ACCT_RULES_OK or ACCT_RULES_ENOMEM. */
int acct_dmap_row_cells(const struct acct_dmap *m, int32_t *cells, double *score);

/* ---- rules ---------------------------------------------------------------
 *
 * Both append rules of the map's collective to r (which must have none of
 * that collective yet: EINVAL otherwise), one rectangle per run of equal
 * decisions: cells are merged along each row (bytes) into maximal runs,
 * then runs with the same column range and decision in consecutive rows are
 * merged into one rectangle. The rectangles tile the whole plane (comm_size
 * 1..max, bytes 0..max) with no overlaps; cells whose decision is native
 * are written as explicit native rules. r->nrules is updated; fails with
 * EINVAL if r would exceed ACCT_RULES_MAX_RULES. acct_dmap_rules gives a
 * collective decided from the communicator size alone the rows of
 * acct_dmap_row_cells (every rule bytes [0, max], as the validator wants);
 * acct_qt_rules follows its tree, which may split them by bytes: acct-tune
 * and acct_decide_from_points never build a quadtree of them. */
int acct_dmap_rules(const struct acct_dmap *m, struct acct_rules *r, struct acct_diags *diags);

/* A tuning cut short (acct-tune --budget, or every method failing at the
 * larger sizes) measured coll only up to `measured` bytes although
 * `next` (> measured) was asked for. The map's last column is open-ended
 * (bytes up to max): it would give the pick at `measured` to sizes nobody
 * measured (issue 21: no region without evidence). End every such rule of
 * coll at the geometric middle of measured and next, the boundary the map
 * would have drawn had `next` been measured; larger calls then have no rule
 * and run native. Returns the number of rules ended. */
size_t acct_rules_end_bytes(struct acct_rules *r, enum acct_coll_id coll, uint64_t measured,
                            uint64_t next);
int acct_qt_rules(const struct acct_quadtree *qt, struct acct_rules *r,
                  struct acct_diags *diags);

/* The same from any per-cell method choice (ncomm * nbytes indices). */
int acct_cells_rules(const struct acct_dmap *m, const int32_t *cells, struct acct_rules *r,
                     struct acct_diags *diags);

/* ---- penalty statistics (the paper's Tables 1-2) ---------------------------
 *
 * The penalty of a cell is (t(chosen) - t(best)) / t(best) * 100 with the
 * exact map's median times. Only measured cells where the chosen method was
 * measured count ("compared"); measured cells where it was not are counted
 * apart ("unknown"); a best time of 0 counts as penalty 0 if the chosen
 * time is 0 too, else as unknown. */

struct acct_penalty_stats {
    int depth_max, depth_min;   /* over leaves (0 for a map or rules) */
    double depth_mean;          /* mean over leaves (as the paper's tables) */
    double depth_mean_cells;    /* mean over cells: tests per uniform lookup */
    double pen_min, pen_max, pen_mean, pen_median; /* percent, over compared cells */
    size_t leaves, nodes;       /* quadtree; for rules: leaves = rules, nodes = 0 */
    size_t cells, compared, unknown;
};

/* Penalty of a per-cell choice. */
int acct_penalty_cells(const struct acct_dmap *m, const int32_t *cells,
                       struct acct_penalty_stats *st);

/* Penalty and shape of a quadtree (qt built from m). */
int acct_qt_stats(const struct acct_quadtree *qt, const struct acct_dmap *m,
                  struct acct_penalty_stats *st);

/* Penalty of arbitrary rules (e.g. read back from a file) at the map's
 * measured points: each cell's decision is the rule containing (comm[i],
 * bytes[j]) as acct_rules_resolve picks it. leaves = rules of the collective. */
int acct_penalty_rules(const struct acct_dmap *m, const struct acct_rules *r,
                       struct acct_penalty_stats *st);

/* Per-cell penalty in percent (ncomm * nbytes; NAN when not comparable). */
int acct_penalty_map(const struct acct_dmap *m, const int32_t *cells, double *out);

/* One table line "max min mean | min max mean median | leaves nodes". */
void acct_penalty_print_header(FILE *f);
void acct_penalty_print_row(FILE *f, const char *label, const struct acct_penalty_stats *st);

/* ---- everything at once ------------------------------------------------------ */

/* The decisions of every collective that has points: its exact map, then
 * (params NULL) the map's rules or (params given) its quadtree's rules
 * (a collective decided from the communicator size alone: always the rows
 * of acct_dmap_row_cells, penalty against the exact map),
 * appended to r (which must have no rules of those collectives; its
 * provenance is left to the caller). st, if not NULL, gets each
 * collective's statistics (all zero for collectives without points; for
 * the exact map: zero penalty, leaves = rules). Stops at the first error. */
int acct_decide_from_points(const struct acct_result_point *pts, size_t npts,
                            const struct acct_qt_params *params, struct acct_rules *r,
                            struct acct_penalty_stats st[ACCT_COLL_COUNT],
                            struct acct_diags *diags);

/* The map as CSV for plots (tools/): one line per cell,
 * "collective,comm_size,bytes,measured,best,best_us,chosen,chosen_us,penalty_pct"
 * with methods in ACCT_FORCE syntax (acct_decision_format, in double
 * quotes: a reorder flag adds ",reorder"); chosen is
 * cells[] (NULL: the exact map's best); times and penalty are empty where
 * not measured. */
int acct_dmap_write_csv(FILE *f, const struct acct_dmap *m, const int32_t *cells);

/* ---- export: Open MPI 4.1.4 coll/tuned dynamic rules ----------------------
 *
 * The numeric format read by ompi/mca/coll/tuned/coll_tuned_dynamic_file.c
 * (docs/decisions.md has the grammar, the collective ids, the algorithm
 * numbers and the message-size translation per collective). Open MPI drops
 * a whole file silently on any error, so the exporter only writes what its
 * validator (acct_ompi_parse_buffer) accepts. */

/* Open MPI's COLLTYPE ids (coll_base_functions.h, 4.1.x). */
enum acct_ompi_coll {
    ACCT_OMPI_ALLGATHER = 0,
    ACCT_OMPI_ALLGATHERV = 1,
    ACCT_OMPI_ALLREDUCE = 2,
    ACCT_OMPI_ALLTOALL = 3,
    ACCT_OMPI_ALLTOALLV = 4,
    ACCT_OMPI_ALLTOALLW = 5,
    ACCT_OMPI_BARRIER = 6,
    ACCT_OMPI_BCAST = 7,
    ACCT_OMPI_EXSCAN = 8,
    ACCT_OMPI_GATHER = 9,
    ACCT_OMPI_GATHERV = 10,
    ACCT_OMPI_REDUCE = 11,
    ACCT_OMPI_REDUCESCATTER = 12,
    ACCT_OMPI_REDUCESCATTERBLOCK = 13,
    ACCT_OMPI_SCAN = 14,
    ACCT_OMPI_SCATTER = 15,
    ACCT_OMPI_SCATTERV = 16,
    ACCT_OMPI_COLLCOUNT = 17, /* ids >= this are refused by the validator */
};

/* How alg maps to Open MPI: its registry row's struct acct_alg_ompi
 * (acct/alg.h); id 0 means "Open MPI's own fixed decision" (native, and
 * where no equivalent exists). Never NULL: for NULL or an unknown alg, id 0
 * and not exact. */
const struct acct_alg_ompi *acct_ompi_map(const struct acct_alg *alg);

/* Open MPI's id of an ACCT collective. */
enum acct_ompi_coll acct_ompi_coll_id(enum acct_coll_id coll);

/* Open MPI's message size for the dynamic rules lookup of a call whose
 * ACCT message bytes (docs/rules.md) are m on comm_size ranks. */
uint64_t acct_ompi_msg_bytes(enum acct_coll_id coll, int comm_size, uint64_t m);

/* A parsed (validated) Open MPI rules file. */
struct acct_ompi_msg_rule { uint64_t msg_bytes; int alg, faninout, segsize; int line; };
struct acct_ompi_com_rule { int comm_size; size_t n; struct acct_ompi_msg_rule *v; int line; };
struct acct_ompi_alg_rule { int coll_id; size_t n; struct acct_ompi_com_rule *v; int line; };
struct acct_ompi_rules { size_t n; struct acct_ompi_alg_rule *v; };

/* Check a file exactly as Open MPI 4.1.4 reads it plus what it would do
 * wrong silently (leading zeros, numbers out of range, unknown ids and
 * algorithms, sizes not ascending, trailing garbage, ...). Every problem is
 * reported as FILE:LINE:COLUMN: FIELD: message. */
int acct_ompi_parse_buffer(const char *name, const char *buf, size_t len,
                           struct acct_ompi_rules **out, struct acct_diags *diags);
void acct_ompi_rules_free(struct acct_ompi_rules *r);

/* Open MPI's dynamic decision for (collective id, comm_size, Open MPI
 * message size): the last comm-size section with size <= comm_size (the
 * first section if every section is larger, as Open MPI does), then the
 * last message rule with msg_bytes <= msg. Returns the rule, or NULL when
 * the file has no rule for the collective; both NULL and a rule with alg 0
 * mean Open MPI's fixed decision. */
const struct acct_ompi_msg_rule *acct_ompi_lookup(const struct acct_ompi_rules *r, int coll_id,
                                                  int comm_size, uint64_t msg);

/* Export r. For every communicator size p from 1 to max_comm_size, the
 * collective's rules are resolved exactly as the runtime does
 * (acct_rules_resolve: gaps and power-of-two restrictions become native),
 * each byte range start m becomes Open MPI's message size
 * acct_ompi_msg_bytes(coll, p, m) and its decision Open MPI's algorithm
 * (acct_ompi_map; native and "no equivalent" = 0, Open MPI's fixed
 * decision); consecutive sizes with identical rules share one section,
 * which starts at the first of them. Open MPI applies the last section to
 * all larger communicators. Decisions without an exact Open MPI equivalent
 * and dropped reorder flags are listed in notes (once per algorithm; the
 * return code stays OK). Returns ACCT_RULES_EIO on a write error. */
#define ACCT_OMPI_MAX_COMM_SECTIONS 65536 /* limit on max_comm_size */
struct acct_ompi_export_opts {
    int max_comm_size; /* the largest communicator size of interest, 1 to
                        * ACCT_OMPI_MAX_COMM_SECTIONS; 0: the largest finite
                        * comm_size bound in the rules + 1 */
    /* The layout to export for: Open MPI's rules have no layout dimension,
     * so rules that depend on it (schema 2) are resolved at this layout
     * (where.ranks_per_node 0: unknown -- they are left out), with a note
     * saying so. */
    struct acct_rules_where where;
};
int acct_export_ompi(FILE *f, const struct acct_rules *r, const struct acct_ompi_export_opts *o,
                     struct acct_diags *notes);

/* ---- export: C source ------------------------------------------------------
 *
 * Writes a self-contained C11 translation unit with, for each collective
 * that has rules, a table and a function
 *
 *   struct acct_gen_decision { const char *alg; uint64_t segment; int fanout; bool reorder; };
 *   extern const struct acct_gen_decision acct_decide_<coll>_methods[];
 *   int acct_decide_<coll>(int comm_size, uint64_t bytes);
 *
 * returning an index into the table (0 is always native), with the same
 * answers as acct_rules_resolve + acct_table_lookup (power-of-two
 * restrictions included) for an unknown layout. prefix replaces "acct_decide" when not NULL
 * (a C identifier). */
int acct_export_c(FILE *f, const struct acct_rules *r, const char *prefix);
/* The same for the calls at layout w (NULL: unknown; layout-bound rules,
 * schema 2, then left out): the generated functions take no layout. */
int acct_export_c_at(FILE *f, const struct acct_rules *r, const char *prefix,
                     const struct acct_rules_where *w);

#endif

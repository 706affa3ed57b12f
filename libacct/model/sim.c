/* The discrete-event simulator: the schedules of one call run on the
 * rendezvous matching engine (acct/simulate.h), with per-rank clocks under
 * pLogP costs. Semantics in acct/model.h and docs/models.md.
 *
 * The engine moves a message only while both ranks are in the rounds that
 * hold its send and its receive, and leaves a rank's round once all its
 * messages moved. So when a transfer is reported both ranks have entered
 * their rounds, and their round start times (and hence the start time of
 * every send of those rounds) are known; when a round is reported done,
 * the arrival times of all its receives are known. The engine's order of
 * calls is not the order in time, and need not be: every time is computed
 * from times fixed earlier.
 *
 * Memory: the schedules are kept flat (struct prog: kind, peer and size
 * per step, about SIM_STEP_BYTES with the engine's and the clocks' share),
 * never one struct acct_sched per rank; their size is estimated from a few
 * ranks' schedules and refused against the model's budget before the
 * others are built. Symmetric schedules (the registry row's symmetry) run
 * from rank 0's view alone. */
#include "acct/model.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct/simulate.h"

/* Bytes a simulated step costs: prog (kind 1, peer 4, size 8), clock 8,
 * engine (round 4, partner 4, moved 1), matching key 8, rounds (<= one per
 * step) 8; a rank: offsets 16, clocks 40, engine 21 and slack. */
#define SIM_STEP_BYTES 48u
#define SIM_RANK_BYTES 96u
/* With a layout spanning nodes (struct acct_model_nodes): a step's gap 8,
 * a round's NIC factor 8 and its sort keys 16 + 8 (rounds <= steps). */
#define SIM_NODES_STEP_BYTES 40u
/* The symmetric view: rank 0's flat steps (13), clock 8, key 8, match 8,
 * round 4 and slack. */
#define SIM_SYM_STEP_BYTES 48u
/* Ranks checked against rank 0 in a large symmetric call, and the most
 * steps their schedules may take to build in all. */
#define SIM_SAMPLES 16
#define SIM_SAMPLE_STEPS (4u * 1024 * 1024)

/* The flat schedules of ranks 0 .. size-1 (acct_sim_prog's layout). */
struct prog {
    int size;
    uint64_t nsteps, nrounds, step_cap, round_cap;
    uint64_t *step_at, *round_at, *round_end;
    uint8_t *kind;
    int32_t *peer;
    uint64_t *count;
    uint32_t most; /* most comm steps in one round */
};

static void prog_free(struct prog *g)
{
    free(g->step_at);
    free(g->round_at);
    free(g->round_end);
    free(g->kind);
    free(g->peer);
    free(g->count);
    memset(g, 0, sizeof *g);
}

static int prog_init(struct prog *g, int size)
{
    memset(g, 0, sizeof *g);
    g->size = size;
    g->step_at = calloc((size_t)size + 1, sizeof *g->step_at);
    g->round_at = calloc((size_t)size + 1, sizeof *g->round_at);
    return g->step_at && g->round_at ? 0 : -1;
}

static int reserve(void **p, uint64_t *cap, uint64_t need, size_t elem, uint64_t newcap)
{
    (void)need;
    void *np = realloc(*p, (size_t)newcap * elem);
    if (np == NULL)
        return -1;
    *p = np;
    *cap = newcap;
    return 0;
}

/* Append rank r's schedule (ranks in order). */
static int prog_add(struct prog *g, int r, const struct acct_sched *s)
{
    uint64_t need = g->nsteps + s->nsteps, rneed = g->nrounds + s->nrounds;
    if (need > g->step_cap) {
        uint64_t cap = g->step_cap ? g->step_cap : 1024;
        while (cap < need)
            cap *= 2;
        uint64_t c1 = g->step_cap, c2 = g->step_cap;
        if (reserve((void **)&g->kind, &c1, need, 1, cap) ||
            reserve((void **)&g->peer, &c2, need, sizeof *g->peer, cap) ||
            reserve((void **)&g->count, &g->step_cap, need, sizeof *g->count, cap))
            return -1;
    }
    if (rneed > g->round_cap) {
        uint64_t cap = g->round_cap ? g->round_cap : 1024;
        while (cap < rneed)
            cap *= 2;
        if (reserve((void **)&g->round_end, &g->round_cap, rneed, sizeof *g->round_end, cap))
            return -1;
    }
    g->step_at[r] = g->nsteps;
    g->round_at[r] = g->nrounds;
    for (uint32_t i = 0; i < s->nsteps; i++) {
        const struct acct_step *st = &s->steps[i];
        g->kind[g->nsteps + i] = st->kind;
        g->peer[g->nsteps + i] = st->peer;
        g->count[g->nsteps + i] = st->a.count;
    }
    for (uint32_t q = 0, i = 0; q < s->nrounds; q++) {
        uint32_t comm = 0;
        for (; i < s->round_end[q]; i++)
            comm += s->steps[i].kind == ACCT_STEP_SEND || s->steps[i].kind == ACCT_STEP_RECV;
        g->most = comm > g->most ? comm : g->most;
        g->round_end[g->nrounds + q] = g->nsteps + s->round_end[q];
    }
    g->nsteps = need;
    g->nrounds = rneed;
    g->step_at[r + 1] = g->nsteps;
    g->round_at[r + 1] = g->nrounds;
    return 0;
}

static void prog_round(const struct prog *g, int r, uint32_t q, uint64_t *first, uint64_t *end)
{
    uint64_t x = g->round_at[r] + q;
    *first = q == 0 ? g->step_at[r] : g->round_end[x - 1];
    *end = g->round_end[x];
}

struct sim_rank {
    double start;   /* start of the current round */
    double nic;     /* earliest start of the next send (send gap) */
    double rx;      /* completion of the previous receive (receive gap) */
    double local;   /* cost of the current round's local steps so far */
    double end;     /* end of the last finished round */
};

struct sim {
    const struct prog *g;
    const struct acct_model *mdl;
    int p;          /* the call's ranks (node placement) */
    bool nodes;     /* the model's layout spans nodes: per-message tables */
    struct sim_rank *rk;
    double *t; /* per step: SEND start, or RECV data arrival */
    double *gap;    /* with nodes: per SEND step, its gap (NIC sharing applied) */
    double *share;  /* with nodes: per rank's round (g's numbering), the NIC factor */
    double *inshare; /* with nodes: per rank's round, the receiving NIC's factor */
    uint8_t *both;  /* with nodes and a pair duplex factor: per step, 1 when the rank
                       sends to and receives from that inter-node peer in the round */
    struct rx { double arrival; uint64_t step; } *rxs; /* scratch: one round's receives */
    struct acct_model_round *rounds; /* with mdl->round_fn: per rank's round (g's numbering) */
};

/* The table of a message between ranks a and b (net without a layout). */
static const struct acct_plogp *tab(const struct sim *s, int a, int b)
{
    /* with a layout every message picks its level, even when the call fits
     * on one node (all intra); nodes only adds the NIC sharing */
    return s->mdl->nodes.ranks_per_node > 0 ? acct_model_net_between(s->mdl, s->p, a, b)
                                            : &s->mdl->net;
}

/* The gap of an m-byte message on net: the inter-node level's floored at
 * its sustained bandwidth (acct_model_stream_g), the others as measured. */
static double gap_of(const struct sim *s, const struct acct_plogp *net, uint64_t m)
{
    return s->nodes && net == &s->mdl->nodes.inter ? acct_model_stream_g(net, m)
                                                   : acct_plogp_g(net, m);
}

/* The gap of an m-byte inter-node message between two ranks that also
 * exchange the other way in the round (acct_model_nodes.pair_duplex_factor
 * D and pair_duplex_overlap_bytes c): D g(m) with c = 0; else its first c
 * bytes overlap the other way and the rest costs D times, g(m) +
 * (D - 1) g(m - c), and g(m) when m <= c. */
static double duplex_gap(const struct sim *s, const struct acct_plogp *net, uint64_t m)
{
    const double d = s->mdl->nodes.pair_duplex_factor;
    const uint64_t c = s->mdl->nodes.pair_duplex_overlap_bytes;
    if (c == 0)
        return gap_of(s, net, m) * d;
    return m <= c ? gap_of(s, net, m) : gap_of(s, net, m) + (d - 1) * gap_of(s, net, m - c);
}

/* Rank r enters round q at time t0: fix the start of each send. */
static void enter_round(struct sim *s, int r, uint32_t q, double t0)
{
    const struct prog *g = s->g;
    struct sim_rank *me = &s->rk[r];
    uint64_t first, end;
    me->start = t0;
    me->local = 0;
    if (q >= g->round_at[r + 1] - g->round_at[r])
        return;
    prog_round(g, r, q, &first, &end);
    for (uint64_t i = first; i < end; i++) {
        if (g->kind[i] != ACCT_STEP_SEND)
            continue;
        double t = me->nic > t0 ? me->nic : t0;
        const struct acct_plogp *net = tab(s, r, g->peer[i]);
        double gap = gap_of(s, net, g->count[i]);
        if (s->nodes) {
            if (net == &s->mdl->nodes.inter) {
                gap *= s->share[g->round_at[r] + q];
                if (s->both != NULL && s->both[i])
                    gap = fmax(gap, duplex_gap(s, net, g->count[i]));
            }
            s->gap[i] = gap;
        }
        s->t[i] = t;
        me->nic = t + gap;
    }
}

static void say(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    if (err == NULL || len == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
}

static void arrive(struct sim *s, int src, uint64_t send, int dst, uint64_t recv)
{
    const struct acct_plogp *net = tab(s, src, dst);
    double gap = s->nodes ? s->gap[send] : acct_plogp_g(net, s->g->count[send]);
    s->t[recv] = s->t[send] + gap + net->L_us;
}

static int on_transfer(void *ctx, int src, uint64_t send, int dst, uint64_t recv)
{
    arrive(ctx, src, send, dst, recv);
    return 0;
}

static void add_local(struct sim *s, int rank, uint64_t i)
{
    double per = s->g->kind[i] == ACCT_STEP_REDUCE ? s->mdl->gamma_us_per_byte
                                                   : s->mdl->delta_us_per_byte;
    s->rk[rank].local += per * (double)s->g->count[i];
}

static int on_local(void *ctx, int rank, uint64_t i)
{
    add_local(ctx, rank, i);
    return 0;
}

static int by_arrival(const void *a, const void *b)
{
    const struct rx *x = a, *y = b;
    if (x->arrival != y->arrival)
        return x->arrival < y->arrival ? -1 : 1;
    return x->step < y->step ? -1 : x->step > y->step;
}

static void on_round_done(void *ctx, int r, uint32_t q)
{
    struct sim *s = ctx;
    const struct prog *g = s->g;
    struct sim_rank *me = &s->rk[r];
    uint64_t first, end;
    size_t n = 0;
    double e = me->start;

    prog_round(g, r, q, &first, &end);
    if (s->rounds != NULL)
        for (uint64_t i = first; i < end; i++)
            if (g->kind[i] == ACCT_STEP_SEND || g->kind[i] == ACCT_STEP_RECV) {
                struct acct_model_round *t = &s->rounds[g->round_at[r] + q];
                bool intra = s->mdl->nodes.ranks_per_node > 0 &&
                             tab(s, r, g->peer[i]) == &s->mdl->nodes.intra;
                *(intra ? &t->intra_bytes : &t->inter_bytes) += g->count[i];
            }
    for (uint64_t i = first; i < end; i++) {
        if (g->kind[i] == ACCT_STEP_SEND) {
            double done = s->t[i] + acct_plogp_os(tab(s, r, g->peer[i]), g->count[i]);
            e = done > e ? done : e;
        } else if (g->kind[i] == ACCT_STEP_RECV) {
            s->rxs[n].arrival = s->t[i];
            s->rxs[n].step = i;
            n++;
        }
    }
    if (n > 16) {
        qsort(s->rxs, n, sizeof *s->rxs, by_arrival);
    } else {
        /* a round's few receives: insertion sort (the order is total:
         * ties by step), qsort's setup cost more at 64k ranks */
        for (size_t a = 1; a < n; a++) {
            struct rx x = s->rxs[a];
            size_t b = a;
            for (; b > 0 && by_arrival(&s->rxs[b - 1], &x) > 0; b--)
                s->rxs[b] = s->rxs[b - 1];
            s->rxs[b] = x;
        }
    }
    for (size_t k = 0; k < n; k++) {
        uint64_t m = g->count[s->rxs[k].step];
        const struct acct_plogp *net = tab(s, r, g->peer[s->rxs[k].step]);
        double done = s->rxs[k].arrival;
        double cpu = me->start + acct_plogp_or(net, m);
        double gap = gap_of(s, net, m);
        if (s->nodes && net == &s->mdl->nodes.inter) {
            gap *= s->inshare[g->round_at[r] + q]; /* the node's ingress, shared */
            if (s->both != NULL && s->both[s->rxs[k].step])
                gap = fmax(gap, duplex_gap(s, net, m));
        }
        double link = me->rx + gap;
        done = cpu > done ? cpu : done;
        done = link > done ? link : done;
        me->rx = done;
        e = done > e ? done : e;
    }
    if (s->rounds != NULL) {
        struct acct_model_round *t = &s->rounds[g->round_at[r] + q];
        t->rank = r;
        t->round = q;
        t->start_us = me->start;
        t->local_us = me->local;
        t->end_us = e + me->local;
    }
    e += me->local;
    me->end = e;
    enter_round(s, r, q + 1, e);
}

static int by_key(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Does mdl's layout put a p-rank call on more than one node? */
static bool spans_nodes(const struct acct_model *mdl, int p)
{
    return mdl->nodes.ranks_per_node > 0 && p > mdl->nodes.ranks_per_node;
}

static int sim_alloc(struct sim *s, const struct prog *g, const struct acct_model *mdl, int p)
{
    s->g = g;
    s->mdl = mdl;
    s->p = p;
    s->nodes = spans_nodes(mdl, p) && g->size == p;
    s->rk = calloc((size_t)g->size, sizeof *s->rk);
    s->t = calloc(g->nsteps ? g->nsteps : 1, sizeof *s->t);
    s->rxs = malloc((g->most ? g->most : 1) * sizeof *s->rxs);
    if (mdl->round_fn != NULL &&
        (s->rounds = calloc(g->nrounds ? g->nrounds : 1, sizeof *s->rounds)) == NULL)
        return -1;
    if (s->nodes) {
        s->gap = calloc(g->nsteps ? g->nsteps : 1, sizeof *s->gap);
        s->share = calloc(g->nrounds ? g->nrounds : 1, sizeof *s->share);
        s->inshare = calloc(g->nrounds ? g->nrounds : 1, sizeof *s->inshare);
        if (mdl->nodes.pair_duplex_factor > 1 &&
            (s->both = calloc(g->nsteps ? g->nsteps : 1, sizeof *s->both)) == NULL)
            return -1;
        if (s->gap == NULL || s->share == NULL || s->inshare == NULL)
            return -1;
    }
    return s->rk && s->t && s->rxs ? 0 : -1;
}

static void sim_free(struct sim *s)
{
    free(s->rk);
    free(s->t);
    free(s->rxs);
    free(s->gap);
    free(s->share);
    free(s->inshare);
    free(s->both);
    free(s->rounds);
}

/* Pair duplex (acct_model_nodes.pair_duplex_factor): mark every inter-node
 * send and receive of a rank's round whose peer the rank also receives
 * from (sends to) in that round. Per round the receives' (peer, step)
 * sorted, each send looked up: O(n log n) for a round's n steps. */
static int mark_pairs(struct sim *s)
{
    const struct prog *g = s->g;
    uint64_t *rp = malloc((g->most ? g->most : 1) * sizeof *rp);
    if (rp == NULL)
        return -1;
    for (int r = 0; r < g->size; r++) {
        uint64_t nr = g->round_at[r + 1] - g->round_at[r];
        int node = acct_model_node_of(s->mdl, s->p, r);
        for (uint32_t q = 0; q < nr; q++) {
            uint64_t first, end, n = 0;
            prog_round(g, r, q, &first, &end);
            for (uint64_t i = first; i < end; i++)
                if (g->kind[i] == ACCT_STEP_RECV &&
                    acct_model_node_of(s->mdl, s->p, g->peer[i]) != node)
                    rp[n++] = (uint64_t)(uint32_t)g->peer[i] << 32 | (i - first);
            if (n == 0)
                continue;
            qsort(rp, n, sizeof *rp, by_key);
            for (uint64_t i = first; i < end; i++) {
                if (g->kind[i] != ACCT_STEP_SEND ||
                    acct_model_node_of(s->mdl, s->p, g->peer[i]) == node)
                    continue;
                uint64_t lo = 0, hi = n, want = (uint64_t)(uint32_t)g->peer[i];
                while (lo < hi) {
                    uint64_t mid = (lo + hi) / 2;
                    if (rp[mid] >> 32 < want)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                for (uint64_t j = lo; j < n && rp[j] >> 32 == want; j++) {
                    s->both[first + (rp[j] & 0xffffffffu)] = 1;
                    s->both[i] = 1;
                }
            }
        }
    }
    free(rp);
    return 0;
}

/* NIC sharing (acct/model.h, struct acct_model_nodes): per rank's round,
 * the factor of the number of ranks of its node that send between nodes
 * in the round of the same index, and of those that receive from other
 * nodes in it. Keys (node, round index) of the rounds with an inter-node
 * send, and of those with an inter-node receive, sorted; a run of equal
 * keys is the count. */
static int nic_shares(struct sim *s)
{
    const struct prog *g = s->g;
    struct nk { uint64_t key, at; } *v = malloc((g->nrounds ? g->nrounds : 1) * sizeof *v);
    struct nk *in = malloc((g->nrounds ? g->nrounds : 1) * sizeof *in);
    uint32_t *nmsg = calloc(g->nrounds ? g->nrounds : 1, sizeof *nmsg); /* inter peers in */
    uint64_t *peers = malloc((g->most ? g->most : 1) * sizeof *peers);
    uint64_t n = 0, nin = 0;
    if (v == NULL || in == NULL || nmsg == NULL || peers == NULL) {
        free(v);
        free(in);
        free(nmsg);
        free(peers);
        return -1;
    }
    for (int r = 0; r < g->size; r++) {
        uint64_t nr = g->round_at[r + 1] - g->round_at[r];
        int node = acct_model_node_of(s->mdl, s->p, r);
        for (uint32_t q = 0; q < nr; q++) {
            uint64_t first, end, key = (uint64_t)node << 32 | q;
            bool out = false, inb = false;
            uint64_t np = 0;
            s->share[g->round_at[r] + q] = 1;
            s->inshare[g->round_at[r] + q] = 1;
            prog_round(g, r, q, &first, &end);
            for (uint64_t i = first; i < end; i++) {
                if ((g->kind[i] != ACCT_STEP_SEND && g->kind[i] != ACCT_STEP_RECV) ||
                    acct_model_node_of(s->mdl, s->p, g->peer[i]) == node)
                    continue;
                if (g->kind[i] == ACCT_STEP_RECV)
                    peers[np++] = (uint64_t)(uint32_t)g->peer[i];
                if (g->kind[i] == ACCT_STEP_SEND && !out) {
                    v[n++] = (struct nk){key, g->round_at[r] + q};
                    out = true;
                } else if (g->kind[i] == ACCT_STEP_RECV && !inb) {
                    in[nin++] = (struct nk){key, g->round_at[r] + q};
                    inb = true;
                }
            }
            /* the flows in: the distinct peers it receives from (a peer's
             * messages of one round follow one another, one flow) */
            if (np > 1)
                qsort(peers, np, sizeof *peers, by_key);
            for (uint64_t k = 0; k < np; k++)
                nmsg[g->round_at[r] + q] += k == 0 || peers[k] != peers[k - 1];
        }
    }
    if (s->both != NULL && mark_pairs(s) != 0) {
        free(v);
        free(in);
        free(nmsg);
        free(peers);
        return -1;
    }
    qsort(v, n, sizeof *v, by_key); /* by key (the first member) */
    qsort(in, nin, sizeof *in, by_key);
    /* the receiving side: the flows into a node from other nodes in the
     * rounds of the same index (per rank, the distinct peers it receives
     * from) share its link in: n of them in all each see the gap times
     * f(n) (the one-way factor: its k pairs shared both nodes' links, out
     * of one and into the other); a rank takes its own n_r flows one
     * receive gap apart, so each of its receives is scaled by f(n) / n_r,
     * at least 1 */
    for (uint64_t a = 0, b; a < nin; a = b) {
        uint64_t flows = 0;
        for (b = a; b < nin && in[b].key == in[a].key; b++)
            flows += nmsg[in[b].at];
        double f = acct_model_nic_factor(s->mdl, flows > INT32_MAX ? INT32_MAX : (int)flows);
        for (uint64_t i = a; i < b; i++) {
            double x = f / (double)nmsg[in[i].at];
            s->inshare[in[i].at] = x > 1 ? x : 1;
        }
    }
    for (uint64_t a = 0, b, x = 0; a < n; a = b) {
        for (b = a + 1; b < n && v[b].key == v[a].key; b++)
            ;
        while (x < nin && in[x].key < v[a].key)
            x++;
        uint64_t y = x;
        while (y < nin && in[y].key == v[a].key)
            y++;
        double f = acct_model_nic_share(s->mdl, (int)(b - a), (int)(y - x));
        for (uint64_t i = a; i < b; i++)
            s->share[v[i].at] = f;
    }
    free(v);
    free(in);
    free(nmsg);
    free(peers);
    return 0;
}

/* ---- budget ---- */

static double mib(double bytes)
{
    return bytes / (1024.0 * 1024.0);
}

static size_t budget_of(const struct acct_model *mdl)
{
    return mdl->sim_budget_bytes ? mdl->sim_budget_bytes : ACCT_MODEL_SIM_BUDGET;
}

/* Build rank r's schedule into sc (bounded by the budget). */
static int build_rank(const struct acct_alg *alg, const struct acct_call *call, int r,
                      struct acct_sched *sc, size_t budget, char *err, size_t errlen)
{
    struct acct_call c = *call;
    c.rank = r;
    int rc = acct_alg_schedule(alg, &c, sc);
    if (rc == -2)
        say(err, errlen,
            "rank %d's schedule alone has more than %u steps (%.0f MiB): over the simulator's "
            "memory budget of %.0f MiB",
            r, sc->step_limit, mib((double)sc->step_limit * sizeof(struct acct_step)),
            mib((double)budget));
    else if (rc != 0)
        say(err, errlen, "rank %d: the builder declined or ran out of memory", r);
    return rc;
}

/* ---- the symmetric view ---- */

static bool is_comm(uint8_t k)
{
    return k == ACCT_STEP_SEND || k == ACCT_STEP_RECV;
}

/* Where rank r's relabelling sends rank 0's peer p. */
static int32_t relabel(enum acct_alg_symmetry sym, int p, int r, int32_t peer)
{
    return sym == ACCT_SYM_XOR ? peer ^ r : (int32_t)(((int64_t)peer + r) % p);
}

/* Is rank r's schedule rank 0's (g, one rank) relabelled: the same rounds,
 * the same messages in order with relabelled peers and the same sizes, the
 * same local work per round? */
static bool same_up_to_relabel(const struct prog *g, const struct acct_sched *s,
                               enum acct_alg_symmetry sym, int p, int r)
{
    if (s->nrounds != g->nrounds)
        return false;
    for (uint32_t q = 0, i = 0; q < s->nrounds; q++) {
        uint64_t first, end, x;
        double red0 = 0, cp0 = 0, red = 0, cp = 0;
        prog_round(g, 0, q, &first, &end);
        x = first;
        for (; i < s->round_end[q]; i++) {
            const struct acct_step *st = &s->steps[i];
            if (!is_comm(st->kind)) {
                *(st->kind == ACCT_STEP_REDUCE ? &red : &cp) += (double)st->a.count;
                continue;
            }
            while (x < end && !is_comm(g->kind[x]))
                x++;
            if (x == end || g->kind[x] != st->kind || g->count[x] != st->a.count ||
                relabel(sym, p, r, g->peer[x]) != st->peer)
                return false;
            x++;
        }
        while (x < end && !is_comm(g->kind[x]))
            x++;
        if (x != end)
            return false;
        for (x = first; x < end; x++)
            if (!is_comm(g->kind[x]))
                *(g->kind[x] == ACCT_STEP_REDUCE ? &red0 : &cp0) += (double)g->count[x];
        if (red != red0 || cp != cp0)
            return false;
    }
    return true;
}

/* The ranks checked against rank 0: all up to 64 ranks, else a fixed
 * sample of `most` (neighbours, halves, ends, then pseudo-random ranks from
 * a fixed seed: every rank of every job checks the same ones). */
static int sample_ranks(int p, int *out, int max, int most)
{
    int n = 0;
    if (p <= 64) {
        for (int r = 1; r < p && n < max; r++)
            out[n++] = r;
        return n;
    }
    const int fixed[] = {1, p - 1, p / 2, 2, p - 2, 3, p / 2 - 1, p / 2 + 1};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed && n < max && n < most; i++)
        out[n++] = fixed[i];
    uint64_t x = 0x9e3779b97f4a7c15ull;
    while (n < max && n < most) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        out[n++] = 1 + (int)((x >> 33) % (uint64_t)(p - 1));
    }
    return n;
}

/* Rank 0's view: every rank's timeline is rank 0's, so a receive from q
 * (the k-th) arrives as rank 0's k-th send to the rank that plays 0 for q
 * (P - q for SHIFT, q for XOR) leaves, in the same round. */
static int simulate_symmetric(const struct prog *g, enum acct_alg_symmetry sym, int p,
                              const struct acct_model *mdl, double *t_us, char *err,
                              size_t errlen)
{
    int rc = -1;
    struct sim s = {0};
    uint64_t n = g->nsteps, ncomm = 0;
    uint64_t *keys = malloc((n ? n : 1) * sizeof *keys);
    uint64_t *match = malloc((n ? n : 1) * sizeof *match);
    uint32_t *round_of = malloc((n ? n : 1) * sizeof *round_of);
    const uint64_t RECV_BIT = 1ull << 63;

    if (!keys || !match || !round_of || sim_alloc(&s, g, mdl, p) != 0) {
        say(err, errlen, "out of memory");
        goto out;
    }
    for (uint32_t q = 0; q < g->nrounds; q++) {
        uint64_t first, end;
        prog_round(g, 0, q, &first, &end);
        for (uint64_t i = first; i < end; i++)
            round_of[i] = q;
    }
    for (uint64_t i = 0; i < n; i++) {
        if (!is_comm(g->kind[i]))
            continue;
        int32_t peer = g->peer[i];
        if (peer < 0 || peer >= p) {
            say(err, errlen, "rank 0 step %llu: peer %d out of range", (unsigned long long)i, peer);
            goto out;
        }
        if (peer == 0) {
            say(err, errlen, "rank 0 step %llu: message to itself", (unsigned long long)i);
            goto out;
        }
        /* a receive from q is keyed by the peer its send goes to at rank 0 */
        uint64_t key = g->kind[i] == ACCT_STEP_RECV
                           ? RECV_BIT | (uint64_t)(sym == ACCT_SYM_XOR ? peer : p - peer) << 32
                           : (uint64_t)peer << 32;
        keys[ncomm++] = key | i;
    }
    qsort(keys, ncomm, sizeof *keys, by_key);
    uint64_t nsend = 0;
    while (nsend < ncomm && !(keys[nsend] & RECV_BIT))
        nsend++;
    /* the runs of sends and receives pair up in order */
    for (uint64_t a = 0, b = nsend; a < nsend || b < ncomm;) {
        uint64_t ka = a < nsend ? keys[a] >> 32 : UINT64_MAX;
        uint64_t kb = b < ncomm ? (keys[b] & ~RECV_BIT) >> 32 : UINT64_MAX;
        if (ka != kb) {
            bool lone_send = ka < kb;
            uint64_t i = (lone_send ? keys[a] : keys[b]) & 0xffffffffu;
            say(err, errlen,
                lone_send ? "rank 0 step %llu sends to rank %d; by symmetry rank %d sends to it "
                            "fewer messages than it receives (symmetric view)"
                          : "rank 0 step %llu receives from rank %d, which by symmetry sends "
                            "nothing to match (symmetric view)",
                (unsigned long long)i, g->peer[i], g->peer[i]);
            goto out;
        }
        uint64_t send = keys[a++] & 0xffffffffu, recv = keys[b++] & 0xffffffffu;
        if (round_of[send] != round_of[recv]) {
            say(err, errlen,
                "deadlock: rank 0 receives in round %u what its peer sends in round %u "
                "(symmetric view)",
                round_of[recv], round_of[send]);
            goto out;
        }
        match[recv] = send;
    }
    enter_round(&s, 0, 0, 0.0);
    for (uint32_t q = 0; q < g->nrounds; q++) {
        uint64_t first, end;
        prog_round(g, 0, q, &first, &end);
        for (uint64_t i = first; i < end; i++) {
            if (g->kind[i] == ACCT_STEP_RECV)
                arrive(&s, g->peer[i], match[i], 0, i);
            else if (!is_comm(g->kind[i]))
                add_local(&s, 0, i);
        }
        on_round_done(&s, 0, q);
    }
    *t_us = s.rk[0].end;
    rc = 0;
out:
    sim_free(&s);
    free(keys);
    free(match);
    free(round_of);
    return rc;
}

/* ---- the full simulation ---- */

static int simulate_full(const struct acct_alg *alg, const struct acct_call *call,
                         const struct acct_model *mdl, struct acct_sched *sc, double *t_us,
                         char *err, size_t errlen)
{
    const int p = call->size;
    const size_t budget = budget_of(mdl);
    int rc = -1, root = call->root >= 0 && call->root < p ? call->root : 0;
    struct prog g;
    struct sim s = {0};

    /* Estimate before building: the root's (or rank 0's) schedule plus
     * P - 1 times the mean of sampled others' (the fixed sample of the
     * symmetric check; the running total below still guards). */
    int ranks[64], n = sample_ranks(p, ranks, 64, SIM_SAMPLES);
    uint64_t first = 0, others = 0;
    int nothers = 0, nsampled = 0;
    const double step_bytes = SIM_STEP_BYTES + (spans_nodes(mdl, p) ? SIM_NODES_STEP_BYTES : 0);
    if (build_rank(alg, call, root, sc, budget, err, errlen) != 0)
        return -1;
    first = sc->nsteps;
    for (int i = 0; i < n && p > 1; i++)
        nsampled += ranks[i] != root;
    for (int i = 0; i < n && p > 1; i++) {
        if (ranks[i] == root)
            continue;
        if (build_rank(alg, call, ranks[i], sc, budget, err, errlen) != 0)
            return -1;
        others += sc->nsteps;
        nothers++;
        /* The samples not built yet have >= 0 steps: the estimate below is
         * at least this. Over the budget already: refused as it would be
         * after all of them (a ring at 64k ranks: after one sample, not 16) */
        double low = (double)first + (double)others / nsampled * (p - 1);
        double low_bytes = low * step_bytes + (double)p * SIM_RANK_BYTES;
        if (nothers < nsampled && (low_bytes > (double)budget || low >= (double)UINT32_MAX)) {
            say(err, errlen,
                "at least %.0f steps over %d ranks (%.0f MiB to simulate): over the "
                "simulator's memory budget of %.0f MiB",
                low, p, mib(low_bytes), mib((double)budget));
            return -1;
        }
    }
    double est = (double)first + (nothers ? (double)others / nothers * (p - 1) : 0);
    double bytes = est * step_bytes + (double)p * SIM_RANK_BYTES;
    if (bytes > (double)budget || est >= (double)UINT32_MAX) {
        say(err, errlen,
            "about %.0f steps over %d ranks (%.0f MiB to simulate): over the simulator's "
            "memory budget of %.0f MiB",
            est, p, mib(bytes), mib((double)budget));
        return -1;
    }
    if (prog_init(&g, p) != 0) {
        say(err, errlen, "out of memory");
        goto out;
    }
    for (int r = 0; r < p; r++) {
        if (build_rank(alg, call, r, sc, budget, err, errlen) != 0)
            goto out;
        double now = (double)(g.nsteps + sc->nsteps) * step_bytes + (double)p * SIM_RANK_BYTES;
        if (now > (double)budget || g.nsteps + sc->nsteps >= UINT32_MAX) {
            say(err, errlen,
                "more than %llu steps by rank %d of %d (%.0f MiB): over the simulator's memory "
                "budget of %.0f MiB",
                (unsigned long long)(g.nsteps + sc->nsteps), r, p, mib(now), mib((double)budget));
            goto out;
        }
        if (prog_add(&g, r, sc) != 0) {
            say(err, errlen, "out of memory");
            goto out;
        }
    }
    acct_sched_free(sc); /* the largest single allocation, no longer needed */
    if (sim_alloc(&s, &g, mdl, p) != 0 || (s.nodes && nic_shares(&s) != 0)) {
        say(err, errlen, "out of memory");
        goto out;
    }
    for (int r = 0; r < p; r++)
        enter_round(&s, r, 0, 0.0);
    struct acct_sim_prog pg = {.size = p, .step_at = g.step_at, .round_at = g.round_at,
                               .round_end = g.round_end, .kind = g.kind, .peer = g.peer};
    struct acct_sim_prog_ops ops = {.ctx = &s, .transfer = on_transfer, .local = on_local,
                                    .round_done = on_round_done};
    if (acct_sim_run_prog(&pg, &ops, err, errlen) != 0)
        goto out;
    double t = 0;
    for (int r = 0; r < p; r++)
        t = s.rk[r].end > t ? s.rk[r].end : t;
    *t_us = t;
    for (uint64_t i = 0; s.rounds != NULL && i < g.nrounds; i++)
        mdl->round_fn(mdl->round_ctx, &s.rounds[i]);
    rc = 0;
out:
    sim_free(&s);
    prog_free(&g);
    return rc;
}

/* The symmetric view when the row claims it and the call keeps it: rank
 * 0's schedule, checked against sampled ranks. 1 = not symmetric here
 * (*why set), 0 = done, -1 = error. */
static int try_symmetric(const struct acct_alg *alg, const struct acct_call *call,
                         const struct acct_model *mdl, struct acct_sched *sc, double *t_us,
                         const char **why, char *err, size_t errlen)
{
    const int p = call->size;
    const size_t budget = budget_of(mdl);
    const enum acct_alg_symmetry sym = alg->symmetry;
    struct prog g;
    int rc = -1, ranks[64];

    if (sym == ACCT_SYM_NONE) {
        *why = "the algorithm's schedules are not symmetric (registry)";
        return 1;
    }
    if (spans_nodes(mdl, p)) {
        *why = "the model's layout spans nodes: ranks see different networks";
        return 1;
    }
    if (sym == ACCT_SYM_XOR && (p & (p - 1)) != 0) {
        *why = "XOR symmetry needs a power-of-two size";
        return 1;
    }
    /* rank 0's schedule and its flat copy must fit together */
    const uint32_t limit = sc->step_limit;
    const size_t cap = budget / (sizeof(struct acct_step) + SIM_SYM_STEP_BYTES);
    sc->step_limit = cap < limit ? (uint32_t)cap : limit;
    rc = build_rank(alg, call, 0, sc, budget, err, errlen);
    sc->step_limit = limit;
    if (rc != 0)
        return -1;
    rc = -1;
    const double need = (double)sc->nsteps * (sizeof(struct acct_step) + SIM_SYM_STEP_BYTES);
    if (need > (double)budget) {
        say(err, errlen,
            "rank 0's schedule has %u steps (%.0f MiB to simulate): over the simulator's "
            "memory budget of %.0f MiB",
            sc->nsteps, mib(need), mib((double)budget));
        return -1;
    }
    if (prog_init(&g, 1) != 0 || prog_add(&g, 0, sc) != 0) {
        say(err, errlen, "out of memory");
        goto out;
    }
    /* Sampled ranks: all up to 64, else up to SIM_SAMPLES while they cost
     * no more than SIM_SAMPLE_STEPS steps to build (at least 2: the
     * neighbours, where uneven blocks show first). */
    uint64_t most = SIM_SAMPLE_STEPS / (sc->nsteps ? sc->nsteps : 1);
    most = most < 2 ? 2 : most > SIM_SAMPLES ? SIM_SAMPLES : most;
    int n = sample_ranks(p, ranks, (int)(sizeof ranks / sizeof *ranks), (int)most);
    for (int i = 0; i < n; i++) {
        if (build_rank(alg, call, ranks[i], sc, budget, err, errlen) != 0)
            goto out;
        if (!same_up_to_relabel(&g, sc, sym, p, ranks[i])) {
            *why = "a rank's schedule is not rank 0's relabelled (uneven blocks?)";
            rc = 1;
            goto out;
        }
    }
    acct_sched_free(sc); /* only rank 0's flat copy is needed now */
    rc = simulate_symmetric(&g, sym, p, mdl, t_us, err, errlen);
out:
    prog_free(&g);
    return rc;
}

void acct_model_uniform_counts(uint64_t block, int p, uint64_t *counts, uint64_t *displs)
{
    uint64_t at = 0;
    for (int i = 0; i < p; i++) {
        counts[i] = block;
        displs[i] = at;
        at += counts[i];
    }
}

int acct_model_simulate_view(const struct acct_alg *alg, const struct acct_call *call,
                             const struct acct_model *mdl, enum acct_model_view view,
                             double *t_us, enum acct_model_source *how, char *err,
                             size_t errlen)
{
    int rc = -1, p = call != NULL ? call->size : 0;
    struct acct_sched sc;
    struct acct_layout layout = {0};
    const char *why = NULL;
    uint64_t *vcounts = NULL;

    acct_sched_init(&sc);
    if (how != NULL)
        *how = ACCT_MODEL_NONE;
    if (err != NULL && errlen > 0)
        err[0] = '\0';
    if (alg == NULL || call == NULL || t_us == NULL || p < 1 || alg->build == NULL) {
        say(err, errlen, "%s", alg && alg->build == NULL ? "native has no schedule" : "bad arguments");
        goto out;
    }
    if (acct_model_check(mdl, err, errlen) != 0)
        goto out;
    if ((double)p * SIM_RANK_BYTES > (double)budget_of(mdl) && view != ACCT_MODEL_VIEW_SYMMETRIC &&
        (alg->symmetry == ACCT_SYM_NONE || spans_nodes(mdl, p))) {
        say(err, errlen, "%d ranks (%.0f MiB of clocks alone): over the simulator's memory "
            "budget of %.0f MiB", p, mib((double)p * SIM_RANK_BYTES), mib((double)budget_of(mdl)));
        goto out;
    }
    /* A node-aware method without a layout: the model's placement
     * (struct acct_model_nodes), else one rank per node, the placement its
     * closed form assumes without one (acct_cost.nodes 0). */
    struct acct_call own = *call;
    if ((alg->flags & ACCT_ALG_NODES) && (call->layout == NULL || call->layout == &acct_layout_any)) {
        int *key = malloc((size_t)p * sizeof *key);
        for (int r = 0; key != NULL && r < p; r++) /* the model's placement, if it has one */
            key[r] = mdl->nodes.ranks_per_node > 0 ? acct_model_node_of(mdl, p, r) : r;
        if (key == NULL || acct_layout_build(&layout, p, key) != 0) {
            free(key);
            say(err, errlen, "out of memory");
            goto out;
        }
        free(key);
        own.layout = &layout;
        call = &own;
    }
    /* A v-collective without count arrays: the uniform call, every rank's
     * block count elements (count: the decision's m, the average block),
     * the shape the tuner measures (docs/acct-tune.md). */
    if (acct_coll_vector(call->coll) && call->counts == NULL) {
        vcounts = malloc(2 * (size_t)p * sizeof *vcounts);
        if (vcounts == NULL) {
            say(err, errlen, "out of memory");
            goto out;
        }
        acct_model_uniform_counts(call->count, p, vcounts, vcounts + p);
        if (call != &own)
            own = *call;
        /* a non-root's own block: gatherv's scount, scatterv's count */
        own.count = call->coll == ACCT_COLL_scatterv ? call->count : call->count * (uint64_t)p;
        own.scount = call->count;
        own.counts = own.scounts = vcounts;
        own.displs = own.sdispls = vcounts + p;
        call = &own;
    }
    if (!acct_alg_applicable(alg, call, &why)) {
        say(err, errlen, "not applicable: %s", why ? why : "?");
        goto out;
    }
    /* no single schedule may take more than the budget as acct_steps */
    sc.plain = true; /* the simulator does not read early/lazy marks */
    sc.step_limit = (uint32_t)(budget_of(mdl) / sizeof(struct acct_step) < UINT32_MAX - 1
                                   ? budget_of(mdl) / sizeof(struct acct_step)
                                   : UINT32_MAX - 1);
    if (view != ACCT_MODEL_VIEW_FULL && mdl->round_fn == NULL) {
        int s = try_symmetric(alg, call, mdl, &sc, t_us, &why, err, errlen);
        if (s == 0) {
            if (how != NULL)
                *how = ACCT_MODEL_SYMMETRIC;
            rc = 0;
            goto out;
        }
        if (s < 0)
            goto out;
        if (view == ACCT_MODEL_VIEW_SYMMETRIC) {
            say(err, errlen, "no symmetric view: %s", why);
            goto out;
        }
    }
    if (simulate_full(alg, call, mdl, &sc, t_us, err, errlen) != 0)
        goto out;
    if (how != NULL)
        *how = ACCT_MODEL_SIMULATED;
    rc = 0;
out:
    /* An ACCT_ALG_ALL_COUNTS method runs after the broadcast of the P
     * counts (binomial, 8 P bytes; docs/runtime.md): its time is added. */
    if (rc == 0 && (alg->flags & ACCT_ALG_ALL_COUNTS) && p > 1) {
        struct acct_call bc = {.coll = ACCT_COLL_bcast, .size = p, .root = call->root,
                               .count = 8 * (uint64_t)p, .scount = 8 * (uint64_t)p,
                               .commutative = true};
        double tb = 0;
        if (acct_model_simulate_view(acct_alg_find(ACCT_COLL_bcast, "binomial"), &bc, mdl,
                                     ACCT_MODEL_VIEW_AUTO, &tb, NULL, err, errlen) != 0)
            rc = -1;
        else
            *t_us += tb;
    }
    acct_sched_free(&sc);
    acct_layout_free(&layout);
    free(vcounts);
    return rc;
}

int acct_model_simulate_call(const struct acct_alg *alg, const struct acct_call *call,
                             const struct acct_model *mdl, double *t_us, char *err,
                             size_t errlen)
{
    return acct_model_simulate_view(alg, call, mdl, ACCT_MODEL_VIEW_AUTO, t_us, NULL, err, errlen);
}

void acct_model_call(enum acct_coll_id coll, const struct acct_decision *dec, int p,
                     uint64_t bytes, int root, struct acct_call *call)
{
    bool rooted = acct_coll_rooted(coll);
    *call = (struct acct_call){
        .coll = coll,
        .rank = 0,
        .size = p,
        .root = rooted ? (root >= 0 && root < p ? root : 0) : -1,
        .count = coll == ACCT_COLL_barrier ? 0 : bytes,
        .scount = coll == ACCT_COLL_barrier ? 0 : bytes,
        /* parameters the algorithm does not take are ignored, as in rules files */
        .seg = dec != NULL && dec->alg != NULL && (dec->alg->flags & ACCT_ALG_SEGMENTED)
                   ? dec->segment_bytes
                   : 0,
        .fanout = dec != NULL && dec->alg != NULL && (dec->alg->flags & ACCT_ALG_FANOUT)
                      ? dec->fanout
                      : 0,
        .in_place = false,
        .commutative = true,
    };
}

static double simulate_dec(enum acct_coll_id coll, const struct acct_decision *dec, int p,
                           uint64_t bytes, int root, const struct acct_model *mdl,
                           enum acct_model_source *how)
{
    struct acct_call call;
    double t = NAN;
    if (how != NULL)
        *how = ACCT_MODEL_NONE;
    if (dec == NULL || dec->alg == NULL || dec->alg->coll != coll || p < 1)
        return NAN;
    acct_model_call(coll, dec, p, bytes, root, &call);
    if (acct_model_simulate_view(dec->alg, &call, mdl, ACCT_MODEL_VIEW_AUTO, &t, how, NULL, 0) != 0)
        return NAN;
    return t;
}

double acct_model_simulate(enum acct_coll_id coll, const struct acct_decision *dec, int p,
                           uint64_t bytes, int root, const struct acct_model *mdl)
{
    return simulate_dec(coll, dec, p, bytes, root, mdl, NULL);
}

double acct_model_predict_how(enum acct_coll_id coll, const struct acct_decision *dec, int p,
                              uint64_t bytes, const struct acct_model *mdl,
                              enum acct_model_source *how)
{
    enum acct_model_source src = ACCT_MODEL_NONE;
    uint64_t key = 0;
    double t = NAN;
    if (mdl != NULL && mdl->memo != NULL && dec != NULL &&
        acct_model_memo_get(mdl->memo, mdl, coll, dec, p, bytes, &t, &src, &key)) {
        if (how != NULL)
            *how = src;
        return t;
    }
    t = simulate_dec(coll, dec, p, bytes, 0, mdl, &src);
    if (isnan(t)) {
        t = acct_model_closed_form(coll, dec, p, bytes, mdl);
        src = isnan(t) ? ACCT_MODEL_NONE : ACCT_MODEL_CLOSED_FORM;
    }
    if (mdl != NULL && mdl->memo != NULL && dec != NULL)
        acct_model_memo_put(mdl->memo, key, coll, dec, p, bytes, t, src);
    if (how != NULL)
        *how = src;
    return t;
}

double acct_model_predict(enum acct_coll_id coll, const struct acct_decision *dec, int p,
                          uint64_t bytes, const struct acct_model *mdl)
{
    return acct_model_predict_how(coll, dec, p, bytes, mdl, NULL);
}

const char *acct_model_source_name(enum acct_model_source how)
{
    static const char *const names[] = {
        [ACCT_MODEL_NONE] = "none",
        [ACCT_MODEL_SIMULATED] = "simulated",
        [ACCT_MODEL_SYMMETRIC] = "symmetric",
        [ACCT_MODEL_CLOSED_FORM] = "closed_form",
    };
    return (unsigned)how < sizeof names / sizeof *names ? names[how] : "?";
}

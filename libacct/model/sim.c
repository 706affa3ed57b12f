/* The discrete-event simulator: every rank's schedule of one call run on
 * the rendezvous matching engine (acct/simulate.h), with per-rank clocks
 * under pLogP costs. Semantics in acct/model.h and docs/models.md.
 *
 * The engine moves a message only while both ranks are in the rounds that
 * hold its send and its receive, and leaves a rank's round once all its
 * messages moved. So when a transfer is reported both ranks have entered
 * their rounds, and their round start times (and hence the start time of
 * every send of those rounds) are known; when a round is reported done,
 * the arrival times of all its receives are known. The engine's order of
 * calls is not the order in time, and need not be: every time is computed
 * from times fixed earlier. */
#include "acct/model.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct/simulate.h"

struct sim_rank {
    double start;   /* start of the current round */
    double nic;     /* earliest start of the next send (send gap) */
    double rx;      /* completion of the previous receive (receive gap) */
    double local;   /* cost of the current round's local steps so far */
    double end;     /* end of the last finished round */
    double *t;      /* per step: SEND start, or RECV data arrival */
};

struct sim {
    const struct acct_sched *const *scheds;
    const struct acct_model *mdl;
    struct sim_rank *rk;
    struct rx { double arrival; uint32_t step; } *rxs; /* scratch: one round's receives */
    struct acct_layout layout; /* node-aware methods without one (below) */
};

/* Rank r enters round q at time t0: fix the start of each send. */
static void enter_round(struct sim *s, int r, uint32_t q, double t0)
{
    const struct acct_sched *sc = s->scheds[r];
    struct sim_rank *me = &s->rk[r];
    uint32_t first, end;
    me->start = t0;
    me->local = 0;
    if (q >= sc->nrounds)
        return;
    acct_sched_round_steps(sc, q, &first, &end);
    for (uint32_t i = first; i < end; i++) {
        const struct acct_step *st = &sc->steps[i];
        if (st->kind != ACCT_STEP_SEND)
            continue;
        double t = me->nic > t0 ? me->nic : t0;
        me->t[i] = t;
        me->nic = t + acct_plogp_g(&s->mdl->net, st->a.count);
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

static int on_transfer(void *ctx, int src, const struct acct_step *send, int dst,
                       const struct acct_step *recv)
{
    struct sim *s = ctx;
    uint32_t i = (uint32_t)(send - s->scheds[src]->steps);
    uint32_t j = (uint32_t)(recv - s->scheds[dst]->steps);
    uint64_t m = send->a.count;
    s->rk[dst].t[j] = s->rk[src].t[i] + acct_plogp_g(&s->mdl->net, m) + s->mdl->net.L_us;
    return 0;
}

static int on_local(void *ctx, int rank, const struct acct_step *st)
{
    struct sim *s = ctx;
    double per = st->kind == ACCT_STEP_REDUCE ? s->mdl->gamma_us_per_byte
                                              : s->mdl->delta_us_per_byte;
    s->rk[rank].local += per * (double)st->a.count;
    return 0;
}

static int by_arrival(const void *a, const void *b)
{
    const struct rx *x = a, *y = b;
    if (x->arrival != y->arrival)
        return x->arrival < y->arrival ? -1 : 1;
    return x->step < y->step ? -1 : x->step > y->step;
}

static void on_round_done(void *ctx, int r, unsigned q)
{
    struct sim *s = ctx;
    const struct acct_sched *sc = s->scheds[r];
    const struct acct_plogp *net = &s->mdl->net;
    struct sim_rank *me = &s->rk[r];
    uint32_t first, end;
    size_t n = 0;
    double e = me->start;

    acct_sched_round_steps(sc, q, &first, &end);
    for (uint32_t i = first; i < end; i++) {
        const struct acct_step *st = &sc->steps[i];
        if (st->kind == ACCT_STEP_SEND) {
            double done = me->t[i] + acct_plogp_os(net, st->a.count);
            e = done > e ? done : e;
        } else if (st->kind == ACCT_STEP_RECV) {
            s->rxs[n].arrival = me->t[i];
            s->rxs[n].step = i;
            n++;
        }
    }
    if (n > 1)
        qsort(s->rxs, n, sizeof *s->rxs, by_arrival);
    for (size_t k = 0; k < n; k++) {
        uint64_t m = sc->steps[s->rxs[k].step].a.count;
        double done = s->rxs[k].arrival;
        double cpu = me->start + acct_plogp_or(net, m);
        double link = me->rx + acct_plogp_g(net, m);
        done = cpu > done ? cpu : done;
        done = link > done ? link : done;
        me->rx = done;
        e = done > e ? done : e;
    }
    e += me->local;
    me->end = e;
    enter_round(s, r, q + 1, e);
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

int acct_model_simulate_call(const struct acct_alg *alg, const struct acct_call *call,
                             const struct acct_model *mdl, double *t_us, char *err,
                             size_t errlen)
{
    int rc = -1, p = call != NULL ? call->size : 0;
    struct acct_sched *sc = NULL;
    const struct acct_sched **ptrs = NULL;
    struct sim s = {.mdl = mdl};
    size_t total = 0, most = 1;
    const char *why = NULL;
    uint64_t *vcounts = NULL;

    if (err != NULL && errlen > 0)
        err[0] = '\0';
    if (alg == NULL || call == NULL || t_us == NULL || p < 1 || alg->build == NULL) {
        say(err, errlen, "%s", alg && alg->build == NULL ? "native has no schedule" : "bad arguments");
        goto out;
    }
    if (p > ACCT_MODEL_SIM_MAX_RANKS) {
        say(err, errlen, "%d ranks: the simulator takes at most %d", p, ACCT_MODEL_SIM_MAX_RANKS);
        goto out;
    }
    if (acct_model_check(mdl, err, errlen) != 0)
        goto out;
    /* A node-aware method without a layout: one rank per node, the
     * placement its closed form assumes without one (acct_cost.nodes 0);
     * the model has one network for both levels (issue 21 calibrates
     * intra-node parameters). */
    struct acct_call own = *call;
    if ((alg->flags & ACCT_ALG_NODES) && (call->layout == NULL || call->layout == &acct_layout_any)) {
        int *key = malloc((size_t)p * sizeof *key);
        for (int r = 0; key != NULL && r < p; r++)
            key[r] = r;
        if (key == NULL || acct_layout_build(&s.layout, p, key) != 0) {
            free(key);
            say(err, errlen, "out of memory");
            goto out;
        }
        free(key);
        own.layout = &s.layout;
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
    sc = calloc((size_t)p, sizeof *sc);
    ptrs = calloc((size_t)p, sizeof *ptrs);
    s.rk = calloc((size_t)p, sizeof *s.rk);
    if (sc == NULL || ptrs == NULL || s.rk == NULL) {
        say(err, errlen, "out of memory");
        goto out;
    }
    for (int r = 0; r < p; r++)
        acct_sched_init(&sc[r]);
    for (int r = 0; r < p; r++) {
        struct acct_call c = *call;
        c.rank = r;
        if (acct_alg_schedule(alg, &c, &sc[r]) != 0) {
            snprintf(err ? err : (char[1]){0}, err ? errlen : 1,
                     "rank %d: the builder declined or ran out of memory", r);
            goto out;
        }
        total += sc[r].nsteps;
        if (total > ACCT_MODEL_SIM_MAX_STEPS) {
            snprintf(err ? err : (char[1]){0}, err ? errlen : 1,
                     "schedule too large (more than %u steps)", ACCT_MODEL_SIM_MAX_STEPS);
            goto out;
        }
        for (uint32_t q = 0; q < sc[r].nrounds; q++) {
            uint32_t first, end;
            acct_sched_round_steps(&sc[r], q, &first, &end);
            if (end - first > most)
                most = end - first;
        }
        ptrs[r] = &sc[r];
        s.rk[r].t = calloc(sc[r].nsteps ? sc[r].nsteps : 1, sizeof(double));
        if (s.rk[r].t == NULL) {
            say(err, errlen, "out of memory");
            goto out;
        }
    }
    s.rxs = malloc(most * sizeof *s.rxs);
    if (s.rxs == NULL) {
        say(err, errlen, "out of memory");
        goto out;
    }
    s.scheds = ptrs;
    for (int r = 0; r < p; r++)
        enter_round(&s, r, 0, 0.0);
    struct acct_sim_ops ops = {.ctx = &s, .transfer = on_transfer, .local = on_local,
                               .round_done = on_round_done};
    if (acct_sim_run(ptrs, p, &ops, err, errlen) != 0)
        goto out;
    double t = 0;
    for (int r = 0; r < p; r++)
        t = s.rk[r].end > t ? s.rk[r].end : t;
    *t_us = t;
    rc = 0;
out:
    if (sc != NULL)
        for (int r = 0; r < p; r++)
            acct_sched_free(&sc[r]);
    if (s.rk != NULL)
        for (int r = 0; r < p; r++)
            free(s.rk[r].t);
    free(s.rk);
    free(s.rxs);
    acct_layout_free(&s.layout);
    free(vcounts);
    free(ptrs);
    free(sc);
    return rc;
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

double acct_model_simulate(enum acct_coll_id coll, const struct acct_decision *dec, int p,
                           uint64_t bytes, int root, const struct acct_model *mdl)
{
    struct acct_call call;
    double t = NAN;
    if (dec == NULL || dec->alg == NULL || dec->alg->coll != coll || p < 1)
        return NAN;
    acct_model_call(coll, dec, p, bytes, root, &call);
    if (acct_model_simulate_call(dec->alg, &call, mdl, &t, NULL, 0) != 0)
        return NAN;
    return t;
}

double acct_model_predict(enum acct_coll_id coll, const struct acct_decision *dec, int p,
                          uint64_t bytes, const struct acct_model *mdl)
{
    double t = acct_model_simulate(coll, dec, p, bytes, 0, mdl);
    return isnan(t) ? acct_model_closed_form(coll, dec, p, bytes, mdl) : t;
}

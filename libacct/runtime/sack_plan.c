/* SACK reordering: fill orders of tree positions (sack_plan.h). Pure. */
#include "sack_plan.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

int sack_tree_of(const struct acct_alg *alg, int fanout, int size, struct sack_tree *out)
{
    struct sack_tree t = {.flat = false, .kind = ACCT_TREE_BINOMIAL, .fanout = 2, .size = size};
    int f = alg != NULL && alg->sack.fanout == ACCT_SACK_CALL_FANOUT
                ? (fanout > 0 ? fanout : alg->fanout_default)
                : 0;

    if (alg == NULL || size < 1 || alg->sack.shape == ACCT_SACK_NONE)
        return -1;
    if (alg->sack.shape == ACCT_SACK_FLAT)
        t.flat = true;
    else if (alg->sack.fanout != ACCT_SACK_CALL_FANOUT) {
        t.kind = alg->sack.kind;
        t.fanout = alg->sack.fanout;
    } else if (f >= alg->fanout_min && f <= alg->fanout_max) {
        t.kind = alg->sack.kind;
        t.fanout = f;
    } else
        return -1; /* the call's fan-out is outside the row's limits */
    *out = t;
    return 0;
}

int sack_tree_parent(const struct sack_tree *t, int pos)
{
    struct acct_tree at;
    if (pos <= 0 || pos >= t->size)
        return -1;
    if (t->flat)
        return 0;
    return acct_tree_build(t->kind, pos, t->size, t->fanout, &at) == 0 ? at.parent : -1;
}

int sack_tree_children(const struct sack_tree *t, int pos, int *out, int max)
{
    struct acct_tree at;
    int n = -1;
    if (pos < 0 || pos >= t->size)
        return -1;
    if (t->flat) {
        n = pos == 0 ? t->size - 1 : 0;
        if (out != NULL && n > max)
            return -1;
        for (int i = 0; out != NULL && i < n; i++)
            out[i] = i + 1;
        return n;
    }
    if (acct_tree_build(t->kind, pos, t->size, t->fanout, &at) != 0)
        return -1;
    n = at.nchildren;
    if (out != NULL) {
        if (n > max)
            return -1;
        memcpy(out, at.children, (size_t)n * sizeof *out);
    }
    return n;
}

int sack_tree_child_towards(const struct sack_tree *t, int pos, int q)
{
    for (int hops = 0; q > 0 && hops < t->size; hops++) {
        int up = sack_tree_parent(t, q);
        if (up == pos)
            return q;
        q = up;
    }
    return -1;
}

int sack_tree_child_slot(const struct sack_tree *t, int pos, int child)
{
    struct acct_tree at;
    if (pos < 0 || pos >= t->size || child <= 0 || child >= t->size)
        return -1;
    if (t->flat)
        return pos == 0 ? child - 1 : -1;
    if (acct_tree_build(t->kind, pos, t->size, t->fanout, &at) != 0)
        return -1;
    for (int i = 0; i < at.nchildren; i++)
        if (at.children[i] == child)
            return i;
    return -1;
}

int sack_fill_parse(const char *s, enum sack_fill def, enum sack_fill *out)
{
    if (s == NULL || *s == '\0')
        *out = def;
    else if (strcasecmp(s, "bf") == 0)
        *out = SACK_FILL_BF;
    else if (strcasecmp(s, "df") == 0)
        *out = SACK_FILL_DF;
    else
        return -1;
    return 0;
}

const char *sack_fill_name(enum sack_fill f)
{
    return f == SACK_FILL_BF ? "bf" : "df";
}

/* Breadth-first: the order array is its own queue. */
static int order_bf(const struct sack_tree *t, int *order)
{
    int kids[ACCT_TREE_MAX_CHILDREN];
    int head = 0, tail = 1;
    order[0] = 0;
    while (head < tail) {
        int pos = order[head++];
        if (t->flat) { /* only the root has children: 1..size-1 */
            for (int c = 1; pos == 0 && c < t->size; c++)
                order[tail++] = c;
            continue;
        }
        int n = sack_tree_children(t, pos, kids, ACCT_TREE_MAX_CHILDREN);
        if (n < 0 || tail + n > t->size)
            return -1;
        for (int i = 0; i < n; i++)
            order[tail++] = kids[i];
    }
    return tail == t->size ? 0 : -1;
}

/* Depth-first preorder, children in serving order (pushed in reverse). */
static int order_df(const struct sack_tree *t, int *order)
{
    int kids[ACCT_TREE_MAX_CHILDREN];
    int *stack = malloc((size_t)t->size * sizeof *stack);
    int top = 0, n_out = 0, rc = 0;

    if (stack == NULL)
        return -1;
    stack[top++] = 0;
    while (top > 0 && rc == 0) {
        int pos = stack[--top];
        if (n_out >= t->size) {
            rc = -1;
            break;
        }
        order[n_out++] = pos;
        if (t->flat) {
            for (int c = t->size - 1; pos == 0 && c >= 1; c--)
                stack[top++] = c;
            continue;
        }
        int n = sack_tree_children(t, pos, kids, ACCT_TREE_MAX_CHILDREN);
        if (n < 0 || top + n > t->size)
            rc = -1;
        for (int i = n - 1; rc == 0 && i >= 0; i--)
            stack[top++] = kids[i];
    }
    free(stack);
    return rc == 0 && n_out == t->size ? 0 : -1;
}

int sack_plan_init(struct sack_plan *p, const struct sack_tree *t, enum sack_fill fill)
{
    int rc;
    p->order = NULL;
    p->ninner = -1;
    if (t->size < 1)
        return -1;
    p->tree = *t;
    p->fill = fill;
    p->order = malloc((size_t)t->size * sizeof *p->order);
    if (p->order == NULL)
        return -1;
    rc = fill == SACK_FILL_BF ? order_bf(t, p->order) : order_df(t, p->order);
    if (rc != 0) {
        free(p->order);
        p->order = NULL;
    }
    return rc;
}

int sack_plan_defer_leaves(struct sack_plan *p)
{
    const int n = p->tree.size;
    int *tmp = malloc((size_t)n * sizeof *tmp), m = 1;
    if (tmp == NULL || p->order == NULL) {
        free(tmp);
        return -1;
    }
    tmp[0] = p->order[0];
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 1; i < n; i++) {
            int k = sack_tree_children(&p->tree, p->order[i], NULL, 0);
            if ((k > 0) == (pass == 0))
                tmp[m++] = p->order[i];
        }
        if (pass == 0)
            p->ninner = m - 1;
    }
    memcpy(p->order, tmp, (size_t)n * sizeof *tmp);
    free(tmp);
    return m == n ? 0 : -1;
}

void sack_plan_fini(struct sack_plan *p)
{
    free(p->order);
    p->order = NULL;
}

int sack_plan_map(const struct sack_plan *p, int root, const int *arrival, int *rank_of_pos)
{
    const int size = p->tree.size;
    int rc = 0;
    if (size < 1 || root < 0 || root >= size)
        return -1;
    for (int i = 0; i < size; i++)
        rank_of_pos[i] = -1;
    rank_of_pos[0] = root;
    for (int i = 1; i < size && rc == 0; i++) {
        int r = arrival[i - 1];
        int pos = sack_plan_position(p, i);
        if (r < 0 || r >= size || r == root)
            rc = -1;
        else
            rank_of_pos[pos] = r;
    }
    /* a permutation: every position got a distinct rank */
    char *seen = rc == 0 ? calloc((unsigned)size, 1) : NULL;
    if (rc == 0 && seen == NULL)
        rc = -1;
    for (int i = 0; rc == 0 && i < size; i++) {
        if (rank_of_pos[i] < 0 || seen[rank_of_pos[i]])
            rc = -1;
        else
            seen[rank_of_pos[i]] = 1;
    }
    free(seen);
    return rc;
}

/* ---- automatic mode ---------------------------------------------------- */

bool sack_auto_is_probe(uint64_t call)
{
    return call >= 1 && ((call <= 64 && (call & (call - 1)) == 0) || call % 64 == 0);
}

static double dmax(double a, double b)
{
    return a > b ? a : b;
}

/* The criteria's common parts. arrival_order: the non-roots by arrival
 * time, ties by rank order from the root (stable); returns the last
 * arrival. static_map: rank (root + p) % n at position p. */
static double arrival_order(int n, int root, const double *arrive, int *order)
{
    double last = 0;
    int m = 0;
    for (int r = 1; r < n; r++)
        order[m++] = (root + r) % n;
    for (int i = 1; i < m; i++)
        for (int j = i; j > 0 && arrive[order[j]] < arrive[order[j - 1]]; j--) {
            int x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
    for (int r = 0; r < n; r++)
        last = dmax(last, arrive[r]);
    return last;
}

static void static_map(int n, int root, int *rop)
{
    for (int q = 0; q < n; q++)
        rop[q] = (root + q) % n;
}

/* The vote from the two models' times (ts static, tr reordered; < 0: a
 * model failed): gain, cost, +1 / 0 / -1, or -2. */
static int vote_of(double ts, double tr, double last, double *gain, double *cost)
{
    if (ts < 0 || tr < 0)
        return -2;
    *gain = ts - tr;
    *cost = SACK_AUTO_C0 + SACK_AUTO_REL * (ts - last);
    return *gain > 1.1 * *cost ? 1 : *gain < *cost ? -1 : 0;
}

double sack_model_finish(const struct sack_tree *t, const int *rank_of_pos, const double *arrive,
                         double h, double s, double t_leaves)
{
    struct sack_plan bf;
    const int n = t->size;
    const bool reordered = t_leaves >= 0;
    double fin = -1;
    if (n < 1 || !(h >= 0) || !(s >= 0) || sack_plan_init(&bf, t, SACK_FILL_BF) != 0)
        return -1;
    /* fwd[p]: when p can pass data on; end[p]: when all of it is there */
    double *fwd = malloc((size_t)n * sizeof *fwd), *end = malloc((size_t)n * sizeof *end);
    int *kid = malloc((size_t)n * sizeof *kid);
    if (fwd != NULL && end != NULL && kid != NULL) {
        fwd[0] = end[0] = fin = dmax(0, arrive[rank_of_pos[0]]);
    }
    for (int i = 0; fin >= 0 && i < n; i++) { /* parents before children */
        int u = bf.order[i];
        int k = sack_tree_children(t, u, kid, n);
        if (k < 0) {
            fin = -1;
            break;
        }
        double link = fwd[u] + s;
        /* reordered: each child in the order it gets its place (the SACK
         * loop serves each as soon as it is known, one link); static: all
         * children together from the start, sharing the link */
        for (int done = 0; done < k; done++) {
            int best = -1;
            double bt = 0;
            for (int c = 0; c < k; c++) {
                if (kid[c] < 0)
                    continue;
                bool leaf = sack_tree_children(t, kid[c], NULL, 0) == 0;
                double when = !reordered ? 0 : leaf ? t_leaves : arrive[rank_of_pos[kid[c]]];
                if (best < 0 || when < bt)
                    best = c, bt = when;
            }
            int v = kid[best];
            double a = dmax(0, arrive[rank_of_pos[v]]), st, xend;
            kid[best] = -1;
            if (reordered) {
                st = dmax(link, bt);
                link = st + h;
                xend = st + h;
            } else {
                st = fwd[u] + s;
                xend = st + (double)k * h;
            }
            /* data may reach a rank before it enters (it is buffered):
             * it forwards and leaves once it has entered */
            fwd[v] = dmax(st + s, a);
            end[v] = dmax(dmax(xend, end[u] + s), a);
            fin = dmax(fin, end[v]);
        }
    }
    free(fwd);
    free(end);
    free(kid);
    sack_plan_fini(&bf);
    return fin;
}

/* The judges' frame: the arguments checked, the plan of fill made and the
 * arrival order / rank-of-position arrays allocated (NULL if out of memory:
 * the judge then says -2). 0, or -2 with nothing to release. */
static int judge_begin(const struct sack_tree *t, enum sack_fill fill, int root, double h,
                       double s, struct sack_plan *p, int **order, int **rop)
{
    const int n = t->size;
    if (n < 1 || root < 0 || root >= n || !(h > 0) || !(s > 0) || s > h ||
        sack_plan_init(p, t, fill) != 0)
        return -2;
    *order = malloc((size_t)n * sizeof **order);
    *rop = malloc((size_t)n * sizeof **rop);
    return 0;
}

static int judge_end(struct sack_plan *p, int *order, int *rop, int rc)
{
    free(order);
    free(rop);
    sack_plan_fini(p);
    return rc;
}

int sack_auto_judge(const struct sack_tree *t, enum sack_fill fill, int root, const double *arrive,
                    double h, double s, double *gain, double *cost)
{
    struct sack_plan p;
    const int n = t->size;
    int rc = -2, *order = NULL, *rop = NULL;
    if (judge_begin(t, fill, root, h, s, &p, &order, &rop) != 0)
        return -2;
    if (order != NULL && rop != NULL && sack_plan_defer_leaves(&p) == 0) {
        double last = arrival_order(n, root, arrive, order), t_leaves = 0;
        /* the leaves are placed when the last position with children is */
        if (p.ninner > 0)
            t_leaves = dmax(0, arrive[order[p.ninner - 1]]);
        static_map(n, root, rop);
        double ts = sack_model_finish(t, rop, arrive, h, s, -1);
        double tr = sack_plan_map(&p, root, order, rop) == 0
                        ? sack_model_finish(t, rop, arrive, h, s, t_leaves)
                        : -1;
        rc = vote_of(ts, tr, last, gain, cost);
    }
    return judge_end(&p, order, rop, rc);
}

double sack_model_up_finish(const struct sack_tree *t, const int *rank_of_pos,
                            const double *arrive, double h, double s, bool gather, bool stream)
{
    struct sack_plan bf;
    const int n = t->size;
    double fin = -1;
    if (n < 1 || !(h >= 0) || !(s >= 0) || sack_plan_init(&bf, t, SACK_FILL_BF) != 0)
        return -1;
    /* first[p] / last[p]: when p can send its first / last piece up;
     * vol[p]: what its transfer up carries (gather: its subtree) */
    double *first = malloc((size_t)n * sizeof *first), *last = malloc((size_t)n * sizeof *last);
    double *vol = malloc((size_t)n * sizeof *vol);
    int *kid = malloc((size_t)n * sizeof *kid);
    bool ok = first != NULL && last != NULL && vol != NULL && kid != NULL;
    for (int i = n - 1; ok && i >= 0; i--) { /* children before parents */
        int u = bf.order[i];
        int k = sack_tree_children(t, u, kid, n);
        double a = dmax(0, arrive[rank_of_pos[u]]), link = a, firsts = a;
        if (k < 0) {
            ok = false;
            break;
        }
        vol[u] = gather ? h : 0;
        /* serve the children in the order they can start */
        for (int done = 0; done < k; done++) {
            int best = -1;
            for (int c = 0; c < k; c++)
                if (kid[c] >= 0 && (best < 0 || first[kid[c]] < first[kid[best]]))
                    best = c;
            int v = kid[best];
            kid[best] = -1;
            double st = dmax(link, first[v]);
            link = dmax(st + (gather ? vol[v] : h), last[v] + s);
            firsts = dmax(firsts, st + s);
            if (gather)
                vol[u] += vol[v];
        }
        last[u] = link;
        first[u] = k == 0 ? a : gather ? (stream ? a : link) : firsts;
    }
    if (ok)
        fin = last[0];
    free(first);
    free(last);
    free(vol);
    free(kid);
    sack_plan_fini(&bf);
    return fin;
}

int sack_auto_judge_up(const struct sack_tree *t, enum sack_fill fill, int root,
                       const double *arrive, double h, double s, bool gather, double *gain,
                       double *cost)
{
    struct sack_plan p;
    const int n = t->size;
    int rc = -2, *order = NULL, *rop = NULL;
    if (judge_begin(t, fill, root, h, s, &p, &order, &rop) != 0)
        return -2;
    if (order != NULL && rop != NULL) {
        double last = arrival_order(n, root, arrive, order);
        static_map(n, root, rop);
        double ts = sack_model_up_finish(t, rop, arrive, h, s, gather, false);
        double tr = sack_plan_map(&p, root, order, rop) == 0
                        ? sack_model_up_finish(t, rop, arrive, h, s, gather, true)
                        : -1;
        rc = vote_of(ts, tr, last, gain, cost);
    }
    return judge_end(&p, order, rop, rc);
}

void sack_meter_piece(struct sack_meter *m, uint64_t batch, double t, double bytes)
{
    if (m->b_first == 0) {
        m->b_first = batch;
        m->t_first = t;
    } else if (batch > m->b_first) {
        m->bytes += bytes;
        m->t_end = t;
    }
}

double sack_meter_rate(const struct sack_meter *m)
{
    return m->bytes > 0 && m->t_end > m->t_first ? (m->t_end - m->t_first) / m->bytes : 0;
}

bool sack_auto_feed(struct sack_auto_hist *h, int vote)
{
    const unsigned mask = 0x1f;
    h->plus = ((h->plus << 1) | (vote > 0)) & mask;
    h->minus = ((h->minus << 1) | (vote < 0)) & mask;
    h->n = h->n < 5 ? h->n + 1 : 5;
    if (!h->on && __builtin_popcount(h->plus) >= 3)
        h->on = true;
    else if (h->on && h->n == 5 && h->minus == mask)
        h->on = false;
    return h->on;
}

/* Segmented tree reduce over a chain, binary, binomial or in-order binary
 * tree — the mechanism behind reduce chain, pipeline, binary, binomial and
 * in_order_binary (and the reduce phase of reduce_scatter_block's
 * reduce_scatter).
 *
 * Segment k flows up the tree: in round k a node receives segment k from
 * each child while it sends segment k-1 (reduced at the end of round k-1)
 * to its parent, then reduces segment k; a leaf sends all its segments in
 * one round. Children's segments land in scratch slots, four sets of them
 * (segment k in slot set k % 4: received and reduced in round k, sent in
 * round k+1 — a lazy send, acct/sched.h, completing during round k+2 — and
 * free again when the receive of segment k+4 is posted, early, during round
 * k+3). With fewer sets the next receives would land in a slot still being
 * sent: three sets block the lazy send (segment k+3's early receive, posted
 * during round k+2, reuses it), two the early receives.
 *
 * Operand order. A REDUCE computes b = a (op) b, so with the operands of a
 * node x_0 .. x_n (its own data and its children's partial results) in rank
 * order, the result is built right to left in the buffer of the last one:
 * b = x_j (op) b for j = n-1 .. 0. That buffer must be writable: a child's
 * slot, the root's receive buffer (the last child is received straight
 * into it), or a copy of the node's own data when that comes last (as in
 * the in-order tree, where a node is the highest rank of its subtree).
 *   Non-commutative: a node's operands are in rank order if every subtree
 * is a contiguous rank range and the node's own rank sits at its place
 * among them. Chain, binomial and in-order binary trees have that property
 * when laid out on ranks themselves, not on ranks rotated by the root (a
 * rotated subtree can wrap around from P-1 to 0). So the tree keeps its
 * natural root (rank 0, or P-1 for the in-order tree) and, if that is not
 * the call's root, sends it the result in one message at the end (MPICH's
 * binomial reduce and Open MPI's in-order binary reduce do the same).
 *   Commutative: the tree is rotated to the root, and the operands ordered
 * so that the accumulator is the cheapest buffer (the root's receive
 * buffer, in place or receiving the last child; a child's slot elsewhere).
 *
 * Node-aware trees (acct_reduce_nodes, acct/layout.h; commutative only):
 * each node's intra-node tree reduces into its leader while the leaders'
 * inter-node tree reduces towards the root, segment by segment.
 *
 * Cost (pLogP, ../cost.h; each registered tree's closed form is in its
 * file): the segmented bcast trees run in reverse, plus one reduction per
 * child and segment: about (ns - 1) f g(s) + h (f g(s) + L) + h f gamma s
 * for ns segments of s bytes, tree height h, at most f children per node;
 * plus g(m) + L for the final hop when the tree's root is not the call's
 * root (non-commutative operations only). */
#include "../algs.h"
#include "../cost.h"

#include <string.h>

#define OWN (-1)
#define SLOT_SETS 4 /* segments in flight per slot (see the top) */

/* In-order binary tree over tree indices [0, size), rooted at size-1 (Open
 * MPI's in-order tree): a node is the highest index of its range [lo, hi];
 * the lowest floor(n/2) indices of the range form its right subtree, the
 * others below it its left subtree (each rooted at its highest index).
 *     size 9:          8
 *                    /   \
 *                   7     3
 *                  / \   / \
 *                 6   5 2   1
 *                    /     /
 *                   4     0
 * Every subtree is a contiguous range that ends at its root. */
static void in_order_binary_node(int t, int size, struct acct_tree *out)
{
    int lo = 0, hi = size - 1, parent = -1;
    while (hi != t) {
        int rs = (hi - lo + 1) / 2;
        parent = hi;
        if (t < lo + rs) {
            hi = lo + rs - 1;
        } else {
            lo = lo + rs;
            hi = hi - 1;
        }
    }
    memset(out, 0, sizeof *out);
    out->parent = parent;
    int n = hi - lo + 1, rs = n / 2;
    if (n - 1 - rs >= 1)
        out->children[out->nchildren++] = hi - 1; /* left: [lo + rs, hi - 1] */
    if (rs >= 1)
        out->children[out->nchildren++] = lo + rs - 1; /* right: [lo, lo + rs - 1] */
}

struct operand {
    int rank; /* child's rank, or OWN */
    int t;    /* tree index (rank order for non-commutative operations) */
    int slot; /* scratch slot of a child */
};

/* Where a segment lives: buffer and element offset. */
struct loc {
    enum acct_buf buf;
    uint64_t off;
};

struct plan {
    enum acct_buf own, out, tmp;
    uint64_t count, seg;
    bool full;       /* slots hold the whole vector (for the final hop) */
    uint64_t stride; /* elements per slot */
    int nslots;
    enum { T_OUT, T_OWN, T_SLOT } tkind; /* the accumulator */
    int tslot;
};

static uint64_t slot_off(const struct plan *pl, int slot, uint64_t k)
{
    if (pl->full)
        return (uint64_t)slot * pl->count + k * pl->seg;
    return ((k % SLOT_SETS) * (uint64_t)pl->nslots + (uint64_t)slot) * pl->stride;
}

static struct loc acc_loc(const struct plan *pl, uint64_t k)
{
    struct loc l = {pl->tmp, 0};
    switch (pl->tkind) {
    case T_OUT: l.buf = pl->out; l.off = k * pl->seg; break;
    case T_OWN: l.buf = pl->own; l.off = k * pl->seg; break;
    case T_SLOT: l.off = slot_off(pl, pl->tslot, k); break;
    }
    return l;
}

static struct loc op_loc(const struct plan *pl, const struct operand *op, bool into_out,
                         uint64_t k)
{
    struct loc l = {pl->tmp, 0};
    if (op->rank == OWN) {
        l.buf = pl->own;
        l.off = k * pl->seg;
    } else if (into_out) {
        l.buf = pl->out;
        l.off = k * pl->seg;
    } else {
        l.off = slot_off(pl, op->slot, k);
    }
    return l;
}

/* The node's place in the tree, in tree indices; -1 on bad arguments. */
static int tree_node(enum acct_reduce_tree kind, int fanout, int t, int size, struct acct_tree *tr)
{
    switch (kind) {
    case ACCT_REDUCE_TREE_CHAIN:
        return acct_tree_build(ACCT_TREE_CHAIN, t, size, fanout, tr);
    case ACCT_REDUCE_TREE_BINARY:
        return acct_tree_build(ACCT_TREE_BINARY, t, size, 2, tr);
    case ACCT_REDUCE_TREE_BINOMIAL:
        return acct_tree_build(ACCT_TREE_BINOMIAL, t, size, 2, tr);
    case ACCT_REDUCE_TREE_IN_ORDER_BINARY:
        in_order_binary_node(t, size, tr);
        return 0;
    }
    return -1;
}

/* A node of the tree in ranks: parent and children (serving order) as
 * ranks, and each one's place t in the operands' rank order. */
struct rnode {
    struct acct_tree tr; /* ranks */
    int t;
    int child_t[ACCT_TREE_MAX_CHILDREN];
    int troot; /* the tree's root (rank) */
};

/* The operands of node rn in combining order (children's slots numbered in
 * that order); own data last when it may be overwritten, rank order for
 * non-commutative operations. Returns how many. */
static int order_operands(const struct rnode *rn, bool comm, bool own_w, struct operand *ops)
{
    int nops = 0;

    if (!(comm && own_w))
        ops[nops++] = (struct operand){.rank = OWN, .t = rn->t};
    for (int i = 0; i < rn->tr.nchildren; i++)
        ops[nops++] = (struct operand){.rank = rn->tr.children[i], .t = rn->child_t[i], .slot = i};
    if (comm && own_w)
        ops[nops++] = (struct operand){.rank = OWN, .t = rn->t};
    if (!comm) /* rank order: subtrees are contiguous ranges around t */
        for (int i = 1; i < nops; i++)
            for (int j = i; j > 0 && ops[j - 1].t > ops[j].t; j--) {
                struct operand x = ops[j];
                ops[j] = ops[j - 1];
                ops[j - 1] = x;
            }
    for (int i = 0, slot = 0; i < nops; i++)
        if (ops[i].rank != OWN)
            ops[i].slot = slot++;
    return nops;
}

/* How the accumulator is placed and filled. */
struct acc_plan {
    bool last_into_out; /* the last operand is received straight into out */
    bool copy_own;      /* own data is copied into the accumulator first */
    bool copy_out;      /* the result is copied from the accumulator to out */
};

/* The accumulator: the last operand's buffer, made writable (pl->tkind,
 * tslot, nslots). */
static struct acc_plan choose_accumulator(struct plan *pl, const struct operand *ops, int nops,
                                          bool final, bool own_w)
{
    struct acc_plan a = {false, false, false};
    const int last = nops - 1;

    if (ops[last].rank != OWN) {
        if (final && !own_w) {
            a.last_into_out = true;
            pl->tkind = T_OUT;
        } else {
            pl->tkind = T_SLOT;
            pl->tslot = ops[last].slot;
            a.copy_out = final;
        }
    } else if (nops == 1) {
        pl->tkind = T_OWN; /* a leaf sends its own data */
    } else if (own_w) {
        pl->tkind = T_OUT;
    } else if (final) {
        pl->tkind = T_OUT;
        a.copy_own = true;
    } else {
        pl->tkind = T_SLOT;
        pl->tslot = pl->nslots++;
        a.copy_own = true;
    }
    return a;
}

/* Segment k's combining: own data in, every operand reduced into the
 * accumulator from the last but one down, the result out. */
static void combine_segment(const struct acct_call *c, struct acct_sched *s,
                            const struct plan *pl, const struct operand *ops, int nops,
                            const struct acc_plan *a, uint64_t k)
{
    uint64_t len = acct_seg_len(c->count, c->seg, k);
    struct loc acc = acc_loc(pl, k);

    if (a->copy_own)
        acct_sched_copy(s, pl->own, k * c->seg, len, acc.buf, acc.off, len);
    for (int i = nops - 2; i >= 0; i--) {
        struct loc l = op_loc(pl, &ops[i], false, k);
        acct_sched_reduce(s, l.buf, l.off, acc.buf, acc.off, len);
    }
    if (a->copy_out)
        acct_sched_copy(s, acc.buf, acc.off, len, pl->out, k * c->seg, len);
}

/* The segmented reduce over the tree node rn of this rank. */
static int reduce_over(const struct acct_call *c, struct acct_sched *s, const struct rnode *rn,
                       enum acct_buf own, enum acct_buf out, enum acct_buf tmp)
{
    struct operand ops[ACCT_TREE_MAX_CHILDREN + 1];
    struct plan pl = {.own = own, .out = out, .tmp = tmp, .count = c->count, .seg = c->seg};
    const int troot = rn->troot;
    const bool is_root = c->rank == c->root, is_troot = c->rank == troot;
    const bool final = is_root && is_troot;   /* my result is the call's */
    const int forward_to = is_troot && !is_root ? c->root : -1;
    const bool fetch = is_root && !is_troot;  /* the result comes from troot */
    const bool own_w = is_root && own == out; /* own data may be overwritten */
    const int parent = rn->tr.parent;

    const int nops = order_operands(rn, c->commutative, own_w, ops);
    const int last = nops - 1;
    pl.nslots = rn->tr.nchildren;
    const struct acc_plan a = choose_accumulator(&pl, ops, nops, final, own_w);

    const uint64_t nseg = acct_nsegs(c->count, c->seg);
    pl.full = forward_to >= 0 || nseg == 1;
    pl.stride = pl.full ? c->count : c->seg;
    if (pl.nslots > 0)
        acct_sched_tmp(s, tmp, own, (uint64_t)pl.nslots * pl.stride * (pl.full ? 1 : SLOT_SETS));

    for (uint64_t k = 0; k <= nseg; k++) {
        if (k < nseg) {
            uint64_t len = acct_seg_len(c->count, c->seg, k);
            for (int i = 0; i < nops; i++)
                if (ops[i].rank != OWN) {
                    struct loc l = op_loc(&pl, &ops[i], i == last && a.last_into_out, k);
                    acct_sched_recv(s, ops[i].rank, l.buf, l.off, len);
                }
        }
        if (k >= 1 && parent >= 0) {
            struct loc l = acc_loc(&pl, k - 1);
            acct_sched_send(s, parent, l.buf, l.off, acct_seg_len(c->count, c->seg, k - 1));
        }
        if (k < nseg && nops > 1)
            combine_segment(c, s, &pl, ops, nops, &a, k);
    }
    if (forward_to >= 0) {
        struct loc l = acc_loc(&pl, 0);
        acct_sched_round(s);
        acct_sched_send(s, forward_to, l.buf, l.off, c->count);
    }
    if (fetch) {
        acct_sched_round(s); /* own data in out may still be read or sent */
        acct_sched_recv(s, troot, out, 0, c->count);
    }
    return 0;
}

/* Arguments every tree reduce checks; 1 when there is nothing to send
 * (empty vector, or one rank: copied). */
static int trivial(const struct acct_call *c, struct acct_sched *s, enum acct_buf own,
                   enum acct_buf out)
{
    if (c->size < 1 || c->root < 0 || c->root >= c->size)
        return -1;
    if (c->count == 0)
        return 1;
    if (c->size == 1) {
        if (own != out)
            acct_sched_copy(s, own, 0, c->count, out, 0, c->count);
        return 1;
    }
    return 0;
}

int acct_reduce_tree_io(const struct acct_call *c, struct acct_sched *s,
                        enum acct_reduce_tree kind, int fanout, enum acct_buf own,
                        enum acct_buf out, enum acct_buf tmp)
{
    const int p = c->size;
    const bool comm = c->commutative;
    struct rnode rn;

    if (kind == ACCT_REDUCE_TREE_BINARY && !comm)
        return -1; /* level-order subtrees are not rank ranges */
    int rc = trivial(c, s, own, out);
    if (rc != 0)
        return rc < 0 ? -1 : 0;

    /* rank = (t + shift) % p: rotated to the root only when order is free. */
    const int troot_t = kind == ACCT_REDUCE_TREE_IN_ORDER_BINARY ? p - 1 : 0;
    const int shift = comm ? (c->root - troot_t + p) % p : 0;
    rn.t = (c->rank - shift + p) % p;
    if (tree_node(kind, fanout, rn.t, p, &rn.tr) != 0)
        return -1;
    rn.troot = (troot_t + shift) % p;
    if (rn.tr.parent >= 0)
        rn.tr.parent = (rn.tr.parent + shift) % p;
    for (int i = 0; i < rn.tr.nchildren; i++) {
        rn.child_t[i] = rn.tr.children[i];
        rn.tr.children[i] = (rn.tr.children[i] + shift) % p;
    }
    return reduce_over(c, s, &rn, own, out, tmp);
}

int acct_reduce_nodes_io(const struct acct_call *c, struct acct_sched *s,
                         enum acct_tree_kind inter, int fanout, enum acct_buf own,
                         enum acct_buf out, enum acct_buf tmp)
{
    struct rnode rn;
    struct acct_hier h;

    if (!c->commutative || acct_hier_init(c, &h) != 0)
        return -1; /* a node's ranks need not be a contiguous range */
    int rc = trivial(c, s, own, out);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    if (acct_layout_tree(h.l, c->rank, c->root, inter, fanout, ACCT_REDUCE_INTRA, 2, &rn.tr) != 0)
        return -1;
    rn.t = c->rank;
    rn.troot = c->root;
    for (int i = 0; i < rn.tr.nchildren; i++)
        rn.child_t[i] = rn.tr.children[i];
    return reduce_over(c, s, &rn, own, out, tmp);
}

int acct_reduce_tree(const struct acct_call *c, struct acct_sched *s, enum acct_reduce_tree kind,
                     int fanout)
{
    enum acct_buf own = c->in_place && c->rank == c->root ? ACCT_BUF_RECV : ACCT_BUF_SEND;
    return acct_reduce_tree_io(c, s, kind, fanout, own, ACCT_BUF_RECV, ACCT_BUF_TMP0);
}

int acct_reduce_nodes(const struct acct_call *c, struct acct_sched *s, enum acct_tree_kind inter,
                      int fanout)
{
    enum acct_buf own = c->in_place && c->rank == c->root ? ACCT_BUF_RECV : ACCT_BUF_SEND;
    return acct_reduce_nodes_io(c, s, inter, fanout, own, ACCT_BUF_RECV, ACCT_BUF_TMP0);
}

/* The closed form of the segmented tree reduce, any P (registered binomial,
 * binary and in-order binary reduces; allreduce reduce_bcast and the reduce
 * phase of reduce_scatter_block's reduce_scatter, whose reduce runs the same
 * rounds). It costs the rounds reduce_over() emits, in the simulator's
 * pLogP semantics (acct/model.h), commutative, root at the tree's root:
 *   a leaf sends its ns segments in one round, the k-th at k g(s);
 *   an inner node with d children runs rounds k = 0 .. ns starting at R_k
 *   (R_0 = 0): it sends segment k - 1 to its parent at t = max(nic, R_k)
 *   (nic = t + g(s) after it), receives segment k from each child (arrival
 *   = the child's send + g(s) + L), taking them in arrival order, each done
 *   at max(arrival, R_k + or(s), previous receive + g(s)), and reduces the
 *   d segments: R_{k+1} = max(R_k, t + os(s), receives done) + d gamma s.
 * A subtree's times depend only on its shape, which these trees fix by its
 * size (a binomial subtree's span n has children of spans min(2^j, n - 2^j);
 * a level-order subtree is heap-shaped; an in-order subtree of range n has
 * children of n - 1 - floor(n/2) and floor(n/2)); there are O(log P) sizes,
 * each costed once.
 *   Many segments: the rounds are a max-plus recurrence with the same
 * constants every round, so they become periodic. Once a node's state
 * (R, its last receive, nic) has moved by the same D over a round, and
 * every child either sends with the same period D from that round on, or
 * is slower than D in nothing (period <= D) and already arrives before
 * R + or (where it stays and binds nothing), every later round is the same
 * round shifted by D: the rounds up to ns - 1 are skipped exactly. So the
 * cost is O(log^2 P) times the rounds to the steady state, not O(ns);
 * a subtree not steady within RTREE_MAX_ROUNDS rounds gives NAN (no
 * closed form), never ns send times in memory.
 * Copies (delta) are left out: the reduce's commutative schedule has none
 * off the in-place root. */
struct rtree_shape {
    int n;          /* subtree size (negative: the root's entry) */
    double *send;   /* send[k], k < len: when the subtree's root sends segment k up */
    uint64_t len;   /* send[k] for k >= len: send[len - 1] + (k - len + 1) period */
    double period;
    double fin;     /* the latest round end in the subtree */
};

struct rtree_memo {
    const struct acct_cost *c;
    enum acct_reduce_tree kind;
    uint64_t s, ns;
    int n;
    struct rtree_shape shape[192];
};

static double rtree_send(const struct rtree_shape *sh, uint64_t k)
{
    return k < sh->len ? sh->send[k] : sh->send[sh->len - 1] + (double)(k - sh->len + 1) * sh->period;
}

static int rtree_children(enum acct_reduce_tree kind, int n, int *size)
{
    int d = 0;
    switch (kind) {
    case ACCT_REDUCE_TREE_BINOMIAL:
        for (long b = 1; b < n; b *= 2)
            size[d++] = (int)(b < n - b ? b : n - b);
        break;
    case ACCT_REDUCE_TREE_BINARY: {
        if (n <= 1)
            break;
        int h = 0;
        while ((2L << h) - 1 < n) /* levels 0 .. h; the last one partly filled */
            h++;
        long half = 1L << (h - 1), last = n - ((1L << h) - 1);
        long left = half - 1 + (last < half ? last : half);
        size[d++] = (int)left;
        if (n - 1 - left > 0)
            size[d++] = (int)(n - 1 - left);
        break;
    }
    case ACCT_REDUCE_TREE_IN_ORDER_BINARY:
        if (n - 1 - n / 2 >= 1)
            size[d++] = n - 1 - n / 2;
        if (n / 2 >= 1)
            size[d++] = n / 2;
        break;
    case ACCT_REDUCE_TREE_CHAIN:
        return -1;
    }
    return d;
}

static int rtree_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Equal periods: the same up to rounding in the last bits of t. */
static bool rtree_same(double a, double b, double t)
{
    return fabs(a - b) <= 1e-13 * (fabs(t) > 1 ? fabs(t) : 1);
}

/* Rounds a subtree may take to reach its steady state before the closed
 * form gives up (NAN: no closed form here) rather than keep ns times. */
#define RTREE_MAX_ROUNDS 16384u

/* Append send time t for segment k (growing the array). */
static int rtree_push(struct rtree_shape *me, uint64_t *cap, double t)
{
    if (me->len >= RTREE_MAX_ROUNDS)
        return -1;
    if (me->len == *cap) {
        uint64_t nc = *cap ? 2 * *cap : 64;
        double *ns = realloc(me->send, (size_t)nc * sizeof *ns);
        if (ns == NULL)
            return -1;
        me->send = ns;
        *cap = nc;
    }
    me->send[me->len++] = t;
    return 0;
}

/* The shape of an n-rank subtree (costed on first use); NULL on failure. */
static const struct rtree_shape *rtree_shape(struct rtree_memo *mm, int n, bool root)
{
    for (int i = 0; i < mm->n; i++)
        if (mm->shape[i].n == n && !root)
            return &mm->shape[i];
    if (mm->n >= (int)(sizeof mm->shape / sizeof *mm->shape))
        return NULL;
    const struct acct_cost *c = mm->c;
    int size[ACCT_TREE_MAX_CHILDREN];
    const int d = rtree_children(mm->kind, n, size);
    const uint64_t s = mm->s, ns = mm->ns;
    const double g = cost_g(c, s), L = cost_L(c), os = cost_os(c, s), orx = cost_or(c, s);
    const double red = d > 0 ? d * cost_gamma(c, s) : 0;
    const struct rtree_shape *ch[ACCT_TREE_MAX_CHILDREN];
    double a[ACCT_TREE_MAX_CHILDREN], fin = 0;
    if (d < 0 || d > ACCT_TREE_MAX_CHILDREN)
        return NULL;
    for (int j = 0; j < d; j++) {
        if ((ch[j] = rtree_shape(mm, size[j], false)) == NULL)
            return NULL;
        fin = ch[j]->fin > fin ? ch[j]->fin : fin;
    }
    struct rtree_shape *me = &mm->shape[mm->n++];
    uint64_t cap = 0;
    me->n = root ? -n : n; /* the root's entry is never looked up */
    if (d == 0) { /* a leaf: every segment in one round, one gap apart */
        if (rtree_push(me, &cap, 0) != 0)
            return NULL;
        me->period = g;
        me->fin = (double)(ns - 1) * g + os;
        return me;
    }
    double r = 0, nic = 0, rx = 0;
    for (uint64_t k = 0; k <= ns; k++) {
        const double r0 = r, nic0 = nic, rx0 = rx;
        double e = r;
        if (k >= 1 && !root) {
            double t = nic > r ? nic : r;
            if (rtree_push(me, &cap, t) != 0)
                return NULL;
            nic = t + g;
            e = t + os > e ? t + os : e;
        }
        if (k < ns) {
            for (int j = 0; j < d; j++)
                a[j] = rtree_send(ch[j], k) + g + L;
            qsort(a, (size_t)d, sizeof *a, rtree_cmp);
            for (int j = 0; j < d; j++) {
                double done = a[j];
                done = r + orx > done ? r + orx : done;
                done = rx + g > done ? rx + g : done;
                rx = done;
                e = done > e ? done : e;
            }
            e += red;
        }
        r = e;
        /* steady: round k moved the whole state by D, and every child's
         * input repeats with period D from round k on, or is early (at or
         * before R + or, so it binds nothing) with a period <= D: every
         * round up to ns - 1 is round k shifted by D */
        const double dd = r - r0;
        if (k >= 1 && k + 1 < ns && rtree_same(rx - rx0, dd, r) &&
            (root || rtree_same(nic - nic0, dd, r))) {
            bool steady = true;
            for (int j = 0; j < d && steady; j++) {
                const double arr = rtree_send(ch[j], k) + g + L;
                steady = k + 1 >= ch[j]->len &&
                         (rtree_same(ch[j]->period, dd, r) ||
                          (ch[j]->period <= dd && arr <= r0 + orx));
            }
            if (steady) {
                const double skip = (double)(ns - 1 - k) * dd; /* to the start of round ns */
                r += skip;
                rx += skip;
                nic += skip;
                me->period = dd;
                double e3 = r; /* round ns: the last send */
                if (!root) {
                    double t = nic > r ? nic : r;
                    e3 = t + os > e3 ? t + os : e3;
                }
                r = e3;
                goto done;
            }
        }
    }
    me->period = me->len >= 2 ? me->send[me->len - 1] - me->send[me->len - 2] : g;
done:
    if (me->len == 0 && rtree_push(me, &cap, 0) != 0) /* the root: never read */
        return NULL;
    me->fin = r > fin ? r : fin;
    return me;
}
double acct_reduce_tree_cost(const struct acct_cost *c, enum acct_reduce_tree kind, uint64_t s,
                             uint64_t ns)
{
    struct rtree_memo *mm = calloc(1, sizeof *mm);
    double t = NAN;
    if (mm == NULL || c->p < 1)
        goto out;
    if (c->p == 1 || ns == 0) {
        t = 0;
        goto out;
    }
    mm->c = c;
    mm->kind = kind;
    mm->s = s;
    mm->ns = ns;
    const struct rtree_shape *root = rtree_shape(mm, c->p, true);
    if (root != NULL)
        t = root->fin;
out:
    if (mm != NULL)
        for (int i = 0; i < mm->n; i++)
            free(mm->shape[i].send);
    free(mm);
    return t;
}

/* libacct.so — the preload loader.
 *
 * Slurm (through spank_acct) preloads this library into every process of a
 * job step: shells, hostname, python and MPI ranks alike. So it
 *   - has no dependency on any MPI library and references no MPI symbol
 *     (linked with -z defs: the link fails if one slips in);
 *   - does nothing at load time and nothing in a process that never calls
 *     MPI_Init;
 *   - inside an MPI process, finds the native PMPI entry points in the MPI
 *     library whatever scope it was loaded in (dlsym(RTLD_NEXT) for a program
 *     linked with MPI; the loaded objects themselves for one that dlopen()s
 *     it, as mpi4py does), looking again at every MPI_Init until found, and
 *     in MPI_Init, before PMPI_Init, opens the runtime
 *     (libacct_rt.so, linked against the MPI library) — only if this process
 *     has already mapped the MPI library the runtime was built for — so the
 *     runtime can publish its state for the agreement between ranks;
 *   - routes every wrapped collective through one table of function pointers:
 *     native entry points until the runtime is active, the runtime's after.
 *     With ACCT_DISABLE=1 / ACCT=off the table stays native: one indirect
 *     call per collective, no other work, and the runtime is never mapped.
 *
 * The Fortran entry points (fortran.c) share this file's state through
 * loader.h: their MPI_INIT and friends prepare and activate as MPI_Init does.
 *
 * Any failure (runtime missing, wrong ABI, runtime init refused) leaves the
 * process on the native collectives with at most one warning from rank 0.
 */
#include <dlfcn.h>
#include <link.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct/common.h"
#include "acct/env.h"
#include "acct/log.h"
#include "acct/mpi_wrap.h"
#include "acct/rt_abi.h"
#include "acct/tool.h"
#include "loader.h"

#ifndef ACCT_MPI_SONAME
#error "ACCT_MPI_SONAME must name the MPI library the runtime links (set by CMake)"
#endif

static struct acct_native_fns native;
static pthread_mutex_t resolve_lock = PTHREAD_MUTEX_INITIALIZER;
static int resolved;                         /* natives found (never reset); under resolve_lock */
static const struct acct_rt_api *rt_loaded;  /* opened before PMPI_Init, or NULL */
static const struct acct_rt_api *rt_active;  /* to finalize: init said ACTIVE or INACTIVE */
static const struct acct_rt_api *rt_tool;    /* init said ACTIVE: the tool API works */
static void (*comm_hook)(MPI_Comm);          /* rt_tool's comm_created, or NULL */
static const struct acct_coll_fns *routed;   /* rt_tool's coll, or NULL (acct_loader_routed) */
static void *mpi_lib;                        /* where the natives came from, once resolved */

/* Lazy stubs: a collective called before anything resolved the natives
 * (before MPI_Init: erroneous, but must not crash) resolves them first. */
#define ACCT_X_LAZY(Name, lower, params, args)                             \
    static int lazy_##Name params                                          \
    {                                                                      \
        acct_loader_resolve();                                             \
        return native.coll.Name ? native.coll.Name args : MPI_ERR_INTERN; \
    }
ACCT_WRAPPED_CALLS(ACCT_X_LAZY)
#undef ACCT_X_LAZY

/* The table every exported wrapper calls through. Written only while a
 * single thread is inside MPI_Init/MPI_Finalize, read with acquire loads. */
static struct acct_coll_fns dispatch = {
#define ACCT_X_INIT(Name, lower, params, args) .Name = lazy_##Name,
    ACCT_WRAPPED_CALLS(ACCT_X_INIT)
#undef ACCT_X_INIT
};

#define DISPATCH_LOAD(Name) __atomic_load_n(&dispatch.Name, __ATOMIC_ACQUIRE)
#define DISPATCH_STORE(Name, fn) __atomic_store_n(&dispatch.Name, (fn), __ATOMIC_RELEASE)

/* Where the MPI library is. A program linked with MPI has it in the global
 * scope, after this preloaded library: dlsym(RTLD_NEXT) finds it. A program
 * that dlopen()s MPI -- mpi4py's extension module, a plugin linking libmpi
 * opened with RTLD_LOCAL -- has it in a local scope that RTLD_NEXT never
 * searches; the wrappers still interpose there (the global scope comes
 * first for every object), so the natives must be found by asking the
 * loaded objects themselves. */

/* The handle of the loaded object that defines sym, found through handle h
 * (which searches h's object and its dependencies); NULL if none but this
 * library does. */
static void *defining_object(void *h, const char *sym)
{
    Dl_info self, def;
    void *addr = h != NULL ? dlsym(h, sym) : NULL;
    if (addr == NULL || dladdr(addr, &def) == 0 || def.dli_fname == NULL)
        return NULL;
    if (dladdr((void *)&defining_object, &self) != 0 && self.dli_fbase == def.dli_fbase)
        return NULL;
    return dlopen(def.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
}

/* The names of the loaded objects, collected first: dlopen() must not run
 * inside dl_iterate_phdr's callback (it holds the loader's lock). */
struct object_names {
    char **name;
    size_t n, cap;
};

static int collect_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct object_names *o = arg;
    (void)size;
    if (info->dlpi_name == NULL || info->dlpi_name[0] == '\0')
        return 0; /* the main program (and the vDSO on some systems) */
    if (o->n == o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 64;
        char **grown = realloc(o->name, cap * sizeof *grown);
        if (grown == NULL)
            return 1;
        o->name = grown;
        o->cap = cap;
    }
    if ((o->name[o->n] = strdup(info->dlpi_name)) != NULL)
        o->n++;
    return 0;
}

/* The first loaded object, in load order, that defines one of syms (NULL
 * terminated; tried in order in each object). */
static void *scan_objects(const char *const *syms)
{
    struct object_names o = {0};
    void *found = NULL;
    dl_iterate_phdr(collect_object, &o);
    for (size_t i = 0; i < o.n; i++) {
        void *h = found == NULL ? dlopen(o.name[i], RTLD_LAZY | RTLD_NOLOAD) : NULL;
        if (h != NULL) {
            for (const char *const *sym = syms; found == NULL && *sym != NULL; sym++)
                found = defining_object(h, *sym);
            dlclose(h);
        }
        free(o.name[i]);
    }
    free(o.name);
    return found;
}

/* The handle to look the natives up in: RTLD_NEXT, the MPI library the
 * runtime is built for in any scope, or any loaded MPI library; NULL when
 * no loaded object defines MPI_Init. */
static void *mpi_library(void)
{
    /* PMPI_Init, or MPI_Init: a library without the profiling interface */
    static const char *const init[] = {"PMPI_Init", "MPI_Init", NULL};
    void *h;
    if (dlsym(RTLD_NEXT, "PMPI_Init") != NULL || dlsym(RTLD_NEXT, "MPI_Init") != NULL)
        return RTLD_NEXT;
    h = dlopen(ACCT_MPI_SONAME, RTLD_LAZY | RTLD_NOLOAD);
    if (h != NULL) {
        void *def = defining_object(h, "PMPI_Init");
        dlclose(h);
        if (def != NULL)
            return def; /* the reference keeps it mapped: the process uses it */
    }
    return scan_objects(init);
}

int acct_loader_defined(const char *sym, void **addr, int max)
{
    struct object_names o = {0};
    int n = 0;
    dl_iterate_phdr(collect_object, &o);
    for (size_t i = 0; i < o.n; i++) {
        void *h = dlopen(o.name[i], RTLD_LAZY | RTLD_NOLOAD);
        if (h != NULL) {
            void *a = dlsym(h, sym);
            int known = a == NULL;
            for (int j = 0; j < n && !known; j++)
                known = addr[j] == a;
            if (!known && n < max)
                addr[n++] = a;
            dlclose(h);
        }
        free(o.name[i]);
    }
    free(o.name);
    return n;
}

void *acct_loader_find(const char *const *syms)
{
    for (const char *const *sym = syms; *sym != NULL; sym++)
        if (dlsym(RTLD_NEXT, *sym) != NULL)
            return RTLD_NEXT;
    return scan_objects(syms);
}

void *acct_loader_mpi(void)
{
    return __atomic_load_n(&resolved, __ATOMIC_ACQUIRE) ? mpi_lib : NULL;
}

/* POSIX guarantees a dlsym() result converts to a function pointer; the
 * store through void ** is the conversion POSIX documents. */
static void lookup_native(void *lib, void *slot, const char *pmpi_name, const char *mpi_name)
{
    void *sym = dlsym(lib, pmpi_name);
    if (sym == NULL) /* an MPI library without the profiling interface */
        sym = dlsym(lib, mpi_name);
    memcpy(slot, &sym, sizeof sym);
}

/* Finds the natives; 0 when MPI_Init and friends are known. A failure is
 * never cached: the next call (MPI_Init, once the program has loaded its
 * MPI library) looks again. */
int acct_loader_resolve(void)
{
    static int logged;
    int rc = 0;
    void *lib;

    pthread_mutex_lock(&resolve_lock);
    if (resolved)
        goto out;
    if (!logged) {
        acct_log_init();
        logged = 1;
    }
    if ((lib = mpi_library()) == NULL) {
        rc = -1;
        goto out;
    }
    lookup_native(lib, &native.Init, "PMPI_Init", "MPI_Init");
    lookup_native(lib, &native.Init_thread, "PMPI_Init_thread", "MPI_Init_thread");
    lookup_native(lib, &native.Finalize, "PMPI_Finalize", "MPI_Finalize");
#define ACCT_X_RESOLVE(Name, lower, params, args)                               \
    lookup_native(lib, &native.coll.Name, "PMPI_" #Name, "MPI_" #Name);         \
    if (native.coll.Name != NULL)                                               \
        DISPATCH_STORE(Name, native.coll.Name);
    ACCT_WRAPPED_CALLS(ACCT_X_RESOLVE)
#undef ACCT_X_RESOLVE
#define ACCT_X_RESOLVE_CTOR(Name, params, args, out) \
    lookup_native(lib, &native.ctor.Name, "PMPI_" #Name, "MPI_" #Name);
    ACCT_WRAPPED_CONSTRUCTORS(ACCT_X_RESOLVE_CTOR)
#undef ACCT_X_RESOLVE_CTOR
    mpi_lib = lib;
    __atomic_store_n(&resolved, 1, __ATOMIC_RELEASE);
out:
    pthread_mutex_unlock(&resolve_lock);
    return rc;
}

/* <directory of libacct.so>/libacct_rt.so, or $ACCT_RUNTIME. */
static int runtime_path(char *out, size_t len)
{
    const char *env = getenv("ACCT_RUNTIME");
    Dl_info info;
    char dir[PATH_MAX];
    int n;

    if (env != NULL && *env != '\0') {
        n = snprintf(out, len, "%s", env);
    } else {
        if (dladdr((void *)&runtime_path, &info) == 0 || info.dli_fname == NULL)
            return -1;
        if (snprintf(dir, sizeof dir, "%s", info.dli_fname) >= (int)sizeof dir)
            return -1;
        n = snprintf(out, len, "%s/%s", dirname(dir), ACCT_RT_FILENAME);
    }
    return (n > 0 && (size_t)n < len) ? 0 : -1;
}

static const struct acct_rt_api *load_runtime(void)
{
    const struct acct_rt_api *api = NULL;
    char path[PATH_MAX];
    void *mpi, *handle = NULL, *sym;
    acct_rt_entry_fn entry;

    /* The runtime is linked against ACCT_MPI_SONAME: opening it in a process
     * that uses another MPI library would load a second MPI. */
    mpi = dlopen(ACCT_MPI_SONAME, RTLD_LAZY | RTLD_NOLOAD);
    if (mpi == NULL) {
        acct_warn("this program does not use %s; running with the native collectives",
                  ACCT_MPI_SONAME);
        goto out;
    }
    dlclose(mpi);
    if (runtime_path(path, sizeof path) != 0) {
        acct_warn("cannot locate %s; running with the native collectives", ACCT_RT_FILENAME);
        goto out;
    }
    handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        acct_warn("cannot load the runtime (%s); running with the native collectives", dlerror());
        goto out;
    }
    sym = dlsym(handle, ACCT_RT_ENTRY);
    if (sym == NULL) {
        acct_warn("%s has no %s; running with the native collectives", path, ACCT_RT_ENTRY);
        goto out;
    }
    memcpy(&entry, &sym, sizeof entry);
    api = entry();
    if (api == NULL || api->abi_version != ACCT_RT_ABI_VERSION ||
        api->struct_size != sizeof *api) {
        acct_warn("%s does not match this libacct.so (ABI); running with the native collectives",
                  path);
        api = NULL;
        goto out;
    }
    handle = NULL; /* stays loaded for the life of the process */
out:
    if (handle != NULL)
        dlclose(handle);
    return api;
}

/* Before PMPI_Init: open the runtime unless ACCT is switched off. */
void acct_loader_prepare(void)
{
    const char *why = NULL;

    switch (acct_env_state(&why)) {
    case ACCT_ENV_ON:
        break;
    case ACCT_ENV_OFF:
        acct_debug("%s: pass-through", why);
        return;
    case ACCT_ENV_INVALID:
        acct_warn("%s", why);
        return;
    }
    rt_loaded = load_runtime();
    if (rt_loaded != NULL)
        rt_loaded->pre_init();
}

/* After PMPI_Init succeeded: switch the table to the runtime if it agrees. */
void acct_loader_activate(int thread_level)
{
    const struct acct_rt_api *api = rt_loaded;
    struct acct_rt_init_args args = {.thread_level = thread_level};

    if (api == NULL)
        return;
    switch (api->init(&args)) {
    case ACCT_RT_ACTIVE:
        break;
    case ACCT_RT_INACTIVE:
        rt_active = api; /* finalize writes the report */
        return;
    default:
        return;
    }
#define ACCT_X_ACTIVATE(Name, lower, params, args)                   \
    if (api->coll.Name != NULL && native.coll.Name != NULL)          \
        DISPATCH_STORE(Name, api->coll.Name);
    ACCT_WRAPPED_CALLS(ACCT_X_ACTIVATE)
#undef ACCT_X_ACTIVATE
    rt_active = api;
    rt_tool = api;
    __atomic_store_n(&comm_hook, api->comm_created, __ATOMIC_RELEASE);
    __atomic_store_n(&routed, &api->coll, __ATOMIC_RELEASE);
}

void acct_loader_deactivate(void)
{
    const struct acct_rt_api *api = rt_active;
    if (api == NULL)
        return;
    __atomic_store_n(&routed, NULL, __ATOMIC_RELEASE);
#define ACCT_X_RESTORE(Name, lower, params, args)                    \
    if (native.coll.Name != NULL)                                    \
        DISPATCH_STORE(Name, native.coll.Name);
    ACCT_WRAPPED_CALLS(ACCT_X_RESTORE)
#undef ACCT_X_RESTORE
    rt_active = NULL;
    rt_tool = NULL;
    __atomic_store_n(&comm_hook, NULL, __ATOMIC_RELEASE);
    api->finalize();
}

const struct acct_coll_fns *acct_loader_routed(void)
{
    return __atomic_load_n(&routed, __ATOMIC_ACQUIRE);
}

ACCT_EXPORT int MPI_Init(int *argc, char ***argv)
{
    int rc;
    acct_loader_resolve();
    if (native.Init == NULL)
        return MPI_ERR_INTERN;
    acct_loader_prepare();
    rc = native.Init(argc, argv);
    if (rc == MPI_SUCCESS)
        acct_loader_activate(-1);
    return rc;
}

ACCT_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc;
    acct_loader_resolve();
    if (native.Init_thread == NULL)
        return MPI_ERR_INTERN;
    acct_loader_prepare();
    rc = native.Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        acct_loader_activate(provided != NULL ? *provided : -1);
    return rc;
}

ACCT_EXPORT int MPI_Finalize(void)
{
    acct_loader_resolve();
    if (native.Finalize == NULL)
        return MPI_ERR_INTERN;
    acct_loader_deactivate();
    return native.Finalize();
}

/* The tool API (acct/tool.h): for acct-tune and benchmarks, which link
 * libacct.so and switch methods between experiments. */
ACCT_EXPORT int acct_tool_active(void)
{
    return rt_tool != NULL;
}

ACCT_EXPORT int acct_tool_force(const char *spec)
{
    const struct acct_rt_api *api = rt_tool;
    return api != NULL && api->tool_force != NULL ? api->tool_force(spec) : -1;
}

/* The exported communicator constructors: the native one, then the
 * runtime's hook on the new communicator (acct/mpi_wrap.h). */
#define ACCT_X_CTOR_WRAPPER(Name, params, args, out)                          \
    ACCT_EXPORT int MPI_##Name params                                         \
    {                                                                         \
        void (*hook)(MPI_Comm);                                               \
        int rc;                                                               \
        if (!__atomic_load_n(&resolved, __ATOMIC_ACQUIRE) &&                  \
            acct_loader_resolve() != 0)                                       \
            return MPI_ERR_INTERN;                                            \
        if (native.ctor.Name == NULL)                                         \
            return MPI_ERR_INTERN;                                            \
        rc = native.ctor.Name args;                                           \
        hook = __atomic_load_n(&comm_hook, __ATOMIC_ACQUIRE);                 \
        if (rc == MPI_SUCCESS && hook != NULL && out != NULL)                 \
            hook(*out);                                                       \
        return rc;                                                            \
    }
ACCT_WRAPPED_CONSTRUCTORS(ACCT_X_CTOR_WRAPPER)
#undef ACCT_X_CTOR_WRAPPER

/* The exported collectives: one indirect call through the table. */
#define ACCT_X_WRAPPER(Name, lower, params, args) \
    ACCT_EXPORT int MPI_##Name params { return DISPATCH_LOAD(Name) args; }
ACCT_WRAPPED_CALLS(ACCT_X_WRAPPER)
#undef ACCT_X_WRAPPER

/* dlopen_main: a program that is not linked with MPI and loads it the way
 * Python, R or a plugin host does (issue 17): dlopen(PLUGIN, RTLD_NOW |
 * RTLD_LOCAL) of a shared library that links libmpi, then a call of its
 * entry point acct_plugin_run(), which does MPI_Init_thread ... MPI_Finalize.
 * libmpi is then only in the plugin's local scope, never in the global one.
 *
 * usage: dlopen_main PLUGIN_SO
 * Exit status: the entry point's (0 when every check passed), 2 when the
 * plugin cannot be loaded. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s PLUGIN_SO\n", argv[0]);
        return 2;
    }
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "dlopen_main: %s\n", dlerror());
        return 2;
    }
    int (*run)(void);
    *(void **)&run = dlsym(h, "acct_plugin_run");
    if (!run) {
        fprintf(stderr, "dlopen_main: %s\n", dlerror());
        return 2;
    }
    /* No dlclose: Open MPI is not meant to be unloaded. */
    return run();
}

/* Runs a libFuzzer target over files without libFuzzer, so that the seed
 * corpus and saved crash reproducers are replayed by every build (including
 * ACCT_SANITIZE ones) even where clang is missing.
 *   fuzz_replay FILE_OR_DIR...   exit 0 if every input passed. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;
    if (f == NULL) {
        perror(path);
        return 1;
    }
    for (;;) {
        if (len == cap) {
            cap = cap == 0 ? 65536 : cap * 2;
            uint8_t *nb = realloc(buf, cap);
            if (nb == NULL) {
                free(buf);
                fclose(f);
                return 1;
            }
            buf = nb;
        }
        size_t k = fread(buf + len, 1, cap - len, f);
        if (k == 0)
            break;
        len += k;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    int bad = 0, n = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            perror(argv[i]);
            bad++;
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            bad += run_file(argv[i]);
            n++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        struct dirent *e;
        while (d != NULL && (e = readdir(d)) != NULL) {
            char path[4096];
            if (e->d_name[0] == '.')
                continue;
            snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
            if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
                bad += run_file(path);
                n++;
            }
        }
        if (d != NULL)
            closedir(d);
    }
    printf("replayed %d input%s, %d unreadable\n", n, n == 1 ? "" : "s", bad);
    return bad == 0 ? 0 : 1;
}

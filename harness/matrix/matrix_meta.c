/* matrix_meta.c — meta.json: what was run, where, and on what.
 *
 * Written once when a run starts (so even an interrupted run says what it was) and again
 * at the end with the finish time and the failed cells. The file is flat JSON, one key per
 * line, so the report can read it back without a JSON library:
 *   format_version (MX_FORMAT_VERSION), command, started_utc, finished_utc, wall_s, seed,
 *   repeat, quick, matrix_files, status,
 *   cells, cells_done, cells_failed, git_revision, git_dirty, compiler, build, sqlite, lmdb,
 *   google_benchmark, cpu_model, cores, memory_kib, kernel, servers[] (server stores'
 *   versions), skipped[] (stores that cannot run here, and why; on one line each),
 *   failures[]
 */
#include "matrix.h"

#include <errno.h>
#include <lmdb.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "atomic_file.h"
#include "readfile.h"

#ifndef IDB_GBENCH_VERSION
#define IDB_GBENCH_VERSION "unknown"
#endif
#define MX_META_BYTES_MAX (1 << 20)              /* a meta.json read back, at most */

#ifndef IDB_SOURCE_DIR
#define IDB_SOURCE_DIR "."
#endif

/* The source tree this program was built from (plots/, workloads/matrix.ini). */
const char *mx_source_dir(void) { return IDB_SOURCE_DIR; }

/* path past the source tree's directory and its slash when it lies in the tree. */
const char *mx_tree_relative(const char *path)
{
    size_t n = strlen(IDB_SOURCE_DIR);
    return !strncmp(path, IDB_SOURCE_DIR, n) && path[n] == '/' ? path + n + 1 : path;
}

/* Print s as a JSON string (quotes included) to f. */
static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
        else if (ch == '\n') fputs("\\n", f);
        else if (ch == '\t') fputs("\\t", f);
        else if (ch < 0x20) fprintf(f, "\\u%04x", ch);
        else fputc(ch, f);
    }
    fputc('"', f);
}

/* The first line printed by the shell command cmd into buf ("" when it fails). */
static void first_line_of(const char *cmd, char *buf, size_t len)
{
    buf[0] = 0;
    FILE *p = popen(cmd, "r");
    if (!p) return;
    if (!fgets(buf, (int)len, p)) buf[0] = 0;
    buf[strcspn(buf, "\n")] = 0;
    char sink[256];
    while (fgets(sink, sizeof sink, p)) {}
    if (pclose(p) != 0) buf[0] = 0;
}

/* The value of "key<blanks>:" in /proc file path (e.g. cpuinfo's model name) into buf. */
static void proc_field(const char *path, const char *key, char *buf, size_t len)
{
    snprintf(buf, len, "unknown");
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[512];
    size_t klen = strlen(key);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, klen) != 0) continue;
        char *colon = strchr(line, ':');
        if (!colon) continue;
        colon++;
        while (*colon == ' ' || *colon == '\t') colon++;
        colon[strcspn(colon, "\n")] = 0;
        snprintf(buf, len, "%s", colon);
        break;
    }
    fclose(f);
}

/* The environment a run records. */
typedef struct env {
    char rev[128], dirty[16], cpu[256], mem[64], kernel[400];
} env;

/* Gather the git revision and state of the source tree, the CPU, memory and kernel. */
static void env_gather(env *e)
{
    char cmd[MX_FILE_MAX + 128];
    snprintf(cmd, sizeof cmd, "git -C '%s' rev-parse HEAD 2>/dev/null", mx_source_dir());
    first_line_of(cmd, e->rev, sizeof e->rev);
    snprintf(cmd, sizeof cmd, "git -C '%s' status --porcelain --untracked-files=no 2>/dev/null"
             " | head -1 | wc -l", mx_source_dir());
    first_line_of(cmd, e->dirty, sizeof e->dirty);
    proc_field("/proc/cpuinfo", "model name", e->cpu, sizeof e->cpu);
    proc_field("/proc/meminfo", "MemTotal", e->mem, sizeof e->mem);
    struct utsname u;
    snprintf(e->kernel, sizeof e->kernel, "unknown");
    if (uname(&u) == 0)
        snprintf(e->kernel, sizeof e->kernel, "%s %s %s", u.sysname, u.release, u.machine);
}

#if defined(__clang__)
#define COMPILER "clang " __VERSION__
#elif defined(__GNUC__)
#define COMPILER "gcc " __VERSION__
#else
#define COMPILER __VERSION__
#endif
#if defined(__SANITIZE_ADDRESS__)
#define BUILD "optimized, address sanitizer"
#elif defined(__OPTIMIZE__)
#define BUILD "optimized"
#else
#define BUILD "not optimized: timings are not meaningful"
#endif

/* The environment part of meta.json (after "cells_failed"), up to the failures. */
static void write_env(FILE *f, const env *e)
{
    json_str(f, e->rev[0] ? e->rev : "unknown");
    fprintf(f, ",\n  \"git_dirty\": %s,\n  \"compiler\": ",
            !e->rev[0] ? "null" : atoi(e->dirty) ? "true" : "false");
    json_str(f, COMPILER);
    fprintf(f, ",\n  \"build\": \"%s\",\n  \"sqlite\": \"%s\",\n  \"lmdb\": ", BUILD,
            sqlite3_libversion());
    json_str(f, mdb_version(NULL, NULL, NULL));
    fprintf(f, ",\n  \"google_benchmark\": \"%s\",\n  \"cpu_model\": ", IDB_GBENCH_VERSION);
    json_str(f, e->cpu);
    fprintf(f, ",\n  \"cores\": %ld,\n  \"memory_kib\": %lld,\n  \"kernel\": ",
            sysconf(_SC_NPROCESSORS_ONLN), atoll(e->mem));
    json_str(f, e->kernel);
}

/* "servers" (each available server store's version) and "skipped" (the stores that cannot
 * run here, and why), one line each. */
static void write_servers(FILE *f, const mx_meta *meta)
{
    static const char *const keys[] = { "servers", "skipped" };
    for (int ok = 1; ok >= 0; ok--) {
        fprintf(f, ",\n  \"%s\": [", keys[!ok]);
        for (int i = 0, n = 0; i < meta->n_checks; i++) {
            const mx_store_check *c = &meta->checks[i];
            if (c->ok != ok || (ok && !c->version[0])) continue;
            char line[sizeof c->why + 64];
            snprintf(line, sizeof line, "%s: %s", c->store->name, ok ? c->version : c->why);
            fputs(n++ ? ", " : "", f);
            json_str(f, line);
        }
        fputc(']', f);
    }
}

/* Gather the environment and write meta.json through a temporary name (see matrix.h). */
int mx_meta_write(const char *dir, const mx_meta *meta, idb_err *err)
{
    char path[MX_FILE_MAX];
    env e;
    snprintf(path, sizeof path, "%s/meta.json", dir);
    env_gather(&e);
    idb_atomic a;
    FILE *f = idb_atomic_open(&a, path);
    if (!f) return idb_fail(err, IDB_EIO, "cannot write %s: %s", path, strerror(errno));
    fprintf(f, "{\n  \"format_version\": %d,\n  \"command\": ", MX_FORMAT_VERSION);
    json_str(f, meta->command);
    fprintf(f, ",\n  \"started_utc\": \"%s\",\n  \"finished_utc\": \"%s\",\n  \"wall_s\": %.1f,\n",
            meta->started, meta->finished, meta->wall_s);
    fprintf(f, "  \"seed\": %lld,\n  \"repeat\": %lld,\n  \"quick\": %d,\n  \"matrix_files\": ",
            (long long)meta->seed, (long long)meta->repeat, meta->quick);
    json_str(f, meta->files);
    fprintf(f, ",\n  \"status\": \"%s\",\n  \"cells\": %d,\n  \"cells_done\": %d,\n"
               "  \"cells_failed\": %d,\n  \"git_revision\": ",
            meta->status ? meta->status : MX_STATUS_RUNNING, meta->cells, meta->cells_done,
            meta->cells_failed);
    write_env(f, &e);
    write_servers(f, meta);
    fprintf(f, ",\n  \"failures\": [");
    for (int i = 0; i < meta->n_failures; i++) {
        fputs(i ? ",\n    " : "\n    ", f);
        json_str(f, meta->failures[i]);
    }
    fprintf(f, "%s]\n}\n", meta->n_failures ? "\n  " : "");
    if (idb_atomic_commit(&a, 0) != 0)
        return idb_fail(err, IDB_EIO, "cannot write %s: %s", path, strerror(errno));
    return 0;
}

/* Unquote a JSON string starting at s (at its opening quote) into out. */
static void unquote(const char *s, char *out, size_t len)
{
    size_t n = 0;
    for (s++; *s && *s != '"' && n + 1 < len; s++) {
        if (*s == '\\' && s[1]) {
            s++;
            if (*s == 'n') out[n++] = '\n';
            else if (*s == 't') out[n++] = '\t';
            else if (*s == 'u' && strlen(s) >= 5) {          /* \u00XX: the low byte */
                out[n++] = (char)strtol((char[]){ s[3], s[4], 0 }, NULL, 16);
                s += 4;
            }
            else out[n++] = *s;
        } else {
            out[n++] = *s;
        }
    }
    out[n] = 0;
}

/* Read back the flat meta.json this file writes, one key per line (see matrix.h). */
int mx_meta_read(const char *dir, void (*fn)(void *ctx, const char *key, const char *value),
                 void *ctx, idb_err *err)
{
    char path[MX_FILE_MAX], line[8192], key[128], value[4096];
    snprintf(path, sizeof path, "%s/meta.json", dir);
    idb_err why = { 0 };
    int fd = idb_open_input(path, MX_META_BYTES_MAX, IDB_EIO, &why);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!f) {
        if (fd >= 0) close(fd);
        return fd >= 0 ? idb_fail(err, IDB_ENOMEM, "out of memory")
                       : idb_fail(err, why.code, "%s", why.msg);
    }
    int in_failures = 0;
    while (fgets(line, sizeof line, f)) {
        char *p = line + strspn(line, " \t");
        if (*p != '"') { if (*p == ']') in_failures = 0; continue; }
        if (in_failures) { unquote(p, value, sizeof value); fn(ctx, "failure", value); continue; }
        unquote(p, key, sizeof key);
        char *colon = strstr(p + strlen(key) + 1, ":");
        if (!colon) continue;
        char *v = colon + 1 + strspn(colon + 1, " ");
        if (*v == '[') { in_failures = strcmp(key, "failures") == 0 && !strchr(v, ']'); continue; }
        if (*v == '"') unquote(v, value, sizeof value);
        else { snprintf(value, sizeof value, "%s", v); value[strcspn(value, ",\n")] = 0; }
        fn(ctx, key, value);
    }
    fclose(f);
    return 0;
}

/* Rewrite meta.json of a run whose process died (see matrix.h): its lines as they are but
 * status, cells_done and cells_failed, and the failures array replaced. */
int mx_meta_mark_interrupted(const char *dir, int cells_done, int cells_failed,
                             const char *const *failures, int n_failures, idb_err *err)
{
    char path[MX_FILE_MAX];
    snprintf(path, sizeof path, "%s/meta.json", dir);
    size_t len = 0;
    char *text = idb_read_input(path, MX_META_BYTES_MAX, IDB_EIO, &len, err);
    if (!text) return err ? err->code : IDB_EIO;
    idb_atomic a;
    FILE *f = idb_atomic_open(&a, path);
    if (!f) {
        free(text);
        return idb_fail(err, IDB_EIO, "cannot write %s: %s", path, strerror(errno));
    }
    for (char *l = text, *nl; *l; l = nl ? nl + 1 : l + strlen(l)) {
        nl = strchr(l, '\n');
        if (nl) *nl = 0;
        if (!strncmp(l, "  \"failures\": [", strlen("  \"failures\": ["))) break;
        if (!strncmp(l, "  \"status\": ", strlen("  \"status\": ")))
            fprintf(f, "  \"status\": \"%s\",\n", MX_STATUS_INTERRUPTED);
        else if (!strncmp(l, "  \"cells_done\": ", strlen("  \"cells_done\": ")))
            fprintf(f, "  \"cells_done\": %d,\n", cells_done);
        else if (!strncmp(l, "  \"cells_failed\": ", strlen("  \"cells_failed\": ")))
            fprintf(f, "  \"cells_failed\": %d,\n", cells_failed);
        else
            fprintf(f, "%s\n", l);
    }
    fprintf(f, "  \"failures\": [");
    for (int i = 0; i < n_failures; i++) {
        fputs(i ? ",\n    " : "\n    ", f);
        json_str(f, failures[i]);
    }
    fprintf(f, "%s]\n}\n", n_failures ? "\n  " : "");
    free(text);
    if (idb_atomic_commit(&a, 0) != 0)
        return idb_fail(err, IDB_EIO, "cannot write %s: %s", path, strerror(errno));
    return 0;
}

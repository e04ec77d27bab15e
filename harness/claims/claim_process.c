/* claim_process.c — claim 7, about objectid: no coordination; roughly time-sorted (1 s
 * timestamp); per-process random bytes keep processes apart.
 *
 * "Keeps processes apart" is measured across real processes, two ways:
 *   - exec: the idbench binary is started N times (posix_spawn: fork and exec), each
 *     printing K IDs of its own `objectid` (`idbench gen objectid -n K`); a fresh binary
 *     draws its process bytes at start by construction;
 *   - fork without exec: one instance of the strategy under test is made and used in this
 *     process, then N children forked from it each take K IDs from it, all on one manual
 *     clock stopped inside one second (so only the per-process bytes and the counter can
 *     tell them apart): this is what an instance without its after-fork redraw gets wrong.
 * Each process's per-process field is read back with the strategy's own decode
 * (`process_random`); the checks: one value per process, a different value in every
 * process, and no ID anywhere twice. The simulator shows the rest: no failed order while
 * the counter server is down, and inversions only between orders less than 1 s apart.
 */
#include "claims_int.h"

#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROCS_FULL 8
#define PROCS_QUICK 4
#define IDS_FULL 1000
#define IDS_QUICK 200
#define SIM_INSTANCES 64
#define INVERSION_GAP_MS 1000             /* the timestamp's granularity */
#define FIELD_MAX 64                      /* a decoded field's text */
#define PROCESS_FIELD "process_random"

extern char **environ;

/* IDs gathered from several processes: ids[p * per + i], got[p] of them from process p. */
typedef struct proc_ids {
    int procs, per;
    idb_id *ids;
    int *got;
} proc_ids;

typedef struct field_ctx { const char *key; char value[FIELD_MAX]; } field_ctx;

/* decode's emit callback: keep the value of the field asked for. */
static void keep_field(void *ctx, const char *key, const char *value)
{
    field_ctx *f = ctx;
    if (strcmp(key, f->key) == 0) snprintf(f->value, sizeof f->value, "%s", value);
}

/* qsort order of strings. */
static int cmp_str(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

/* qsort order of IDs. */
static int cmp_id(const void *a, const void *b)
{
    return idb_id_cmp((const idb_id *)a, (const idb_id *)b);
}

/* What the gathered IDs show: processes with exactly one per-process value, distinct
 * values across processes, and IDs equal to another (all by st's decode). */
static void tally(const idb_strategy *st, const proc_ids *g, int *one_value, int *distinct,
                  int64_t *dups)
{
    idb_opts opts;
    char (*val)[FIELD_MAX] = calloc((size_t)g->procs, sizeof *val);
    idb_id *all = malloc((size_t)g->procs * (size_t)g->per * sizeof *all);
    int64_t n = 0;
    *one_value = *distinct = 0;
    *dups = 0;
    if (!val || !all || idb_opts_parse(&opts, st->options, NULL, 0, st->name, NULL) != 0)
        goto out;
    for (int p = 0; p < g->procs; p++) {
        int same = g->got[p] > 0;
        for (int i = 0; i < g->got[p]; i++) {
            field_ctx f = { .key = PROCESS_FIELD };
            const idb_id *id = &g->ids[(size_t)p * (size_t)g->per + (size_t)i];
            all[n++] = *id;
            st->decode(&opts, id, keep_field, &f, NULL);
            if (i == 0) memcpy(val[p], f.value, sizeof f.value);
            same &= f.value[0] && strcmp(f.value, val[p]) == 0;
        }
        *one_value += same;
    }
    qsort(val, (size_t)g->procs, sizeof *val, cmp_str);
    for (int p = 0; p < g->procs; p++) *distinct += val[p][0] && (p == 0 || strcmp(val[p],
                                                                   val[p - 1]) != 0);
    qsort(all, (size_t)n, sizeof *all, cmp_id);
    for (int64_t i = 1; i < n; i++) *dups += idb_id_cmp(&all[i], &all[i - 1]) == 0;
out:
    free(val);
    free(all);
}

/* Read all of fd into a growing buffer (*buf, *len; NUL-terminated). Returns 0 or -1. */
static int read_all(int fd, char **buf, size_t *len)
{
    size_t cap = 4096;
    *len = 0;
    if (!(*buf = malloc(cap))) return -1;
    for (;;) {
        if (*len + 1 >= cap) {
            char *p = realloc(*buf, cap *= 2);
            if (!p) return -1;
            *buf = p;
        }
        ssize_t k = read(fd, *buf + *len, cap - *len - 1);
        if (k < 0) return -1;
        if (k == 0) break;
        *len += (size_t)k;
    }
    (*buf)[*len] = 0;
    return 0;
}

/* Start `exe gen name -n per` with its stdout on a pipe: *pid, *fd. Returns 0 or IDB_EIO. */
static int spawn_gen(const char *exe, const char *name, int per, pid_t *pid, int *fd,
                     idb_err *err)
{
    int pfd[2];
    char count[32];
    snprintf(count, sizeof count, "%d", per);
    char *argv[] = { (char *)exe, "gen", (char *)name, "-n", count, NULL };
    if (pipe(pfd) != 0) return idb_fail(err, IDB_EIO, "claims: cannot make a pipe");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, pfd[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, pfd[0]);
    posix_spawn_file_actions_addclose(&fa, pfd[1]);
    int rc = posix_spawn(pid, exe, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(pfd[1]);
    if (rc != 0) {
        close(pfd[0]);
        return idb_fail(err, IDB_EIO, "claims: cannot run %s: %s", exe, strerror(rc));
    }
    *fd = pfd[0];
    return 0;
}

/* Run the binary g->procs times (see the top) and parse each one's IDs with st. */
static int exec_procs(const char *exe, const idb_strategy *st, proc_ids *g, idb_err *err)
{
    pid_t pid[PROCS_FULL];
    int fd[PROCS_FULL], started = 0, rc = 0;
    for (; started < g->procs && rc == 0; started++)
        if ((rc = spawn_gen(exe, st->name, g->per, &pid[started], &fd[started], err))) break;
    for (int p = 0; p < started; p++) {
        char *out = NULL;
        size_t len;
        int status;
        int ok = read_all(fd[p], &out, &len) == 0;
        close(fd[p]);
        ok &= waitpid(pid[p], &status, 0) == pid[p] && WIFEXITED(status) &&
              WEXITSTATUS(status) == 0;
        g->got[p] = 0;
        for (char *line = out, *nl; ok && line && *line && g->got[p] < g->per; line = nl + 1) {
            if (!(nl = strchr(line, '\n'))) break;
            *nl = 0;
            idb_id *id = &g->ids[(size_t)p * (size_t)g->per + (size_t)g->got[p]];
            if (st->parse(line, id, NULL) == 0) g->got[p]++;
        }
        free(out);
        if (!ok && rc == 0)
            rc = idb_fail(err, IDB_EIO, "claims: %s gen %s failed", exe, st->name);
    }
    return rc;
}

/* Child p of a fork: K IDs from the inherited instance onto fd, then exit. */
static void child(const idb_strategy *st, void *inst, int per, int fd)
{
    for (int i = 0; i < per; i++) {
        idb_id id;
        if (st->next(inst, &id, NULL) != 0 || write(fd, &id, sizeof id) != (ssize_t)sizeof id)
            _exit(1);
    }
    _exit(0);
}

/* One instance made and used here, then g->procs - 1 forked children using it (slot 0
 * holds this process's IDs). Returns 0 or an IDB_E* code. */
static int fork_procs(const idb_strategy *st, proc_ids *g, idb_err *err)
{
    idb_clock clk;
    void *inst;
    idb_clock_manual_init(&clk, SIM_T0_NS);
    int rc = idb_strategy_create_kv(st, NULL, 0, &clk, &inst, err);
    if (rc) return rc;
    for (g->got[0] = 0; g->got[0] < g->per && rc == 0; g->got[0]++)
        rc = st->next(inst, &g->ids[g->got[0]], err);
    fflush(NULL);
    for (int p = 1; p < g->procs && rc == 0; p++) {
        int pfd[2];
        if (pipe(pfd) != 0) { rc = idb_fail(err, IDB_EIO, "claims: cannot make a pipe"); break; }
        pid_t pid = fork();
        if (pid == 0) { close(pfd[0]); child(st, inst, g->per, pfd[1]); }
        close(pfd[1]);
        if (pid < 0) { close(pfd[0]); rc = idb_fail(err, IDB_EIO, "claims: cannot fork"); break; }
        idb_id *ids = &g->ids[(size_t)p * (size_t)g->per];
        ssize_t k;
        size_t have = 0, want = (size_t)g->per * sizeof *ids;
        while (have < want && (k = read(pfd[0], (char *)ids + have, want - have)) > 0)
            have += (size_t)k;
        close(pfd[0]);
        int status;
        waitpid(pid, &status, 0);
        g->got[p] = (int)(have / sizeof *ids);
    }
    st->destroy(inst);
    return rc;
}

/* Both process experiments into r. */
static int processes(const claim_ctx *c, claim_row *r, idb_err *err)
{
    const idb_strategy *bin = claim_need(r->subject, err);   /* what the binary runs */
    if (!bin) return err->code;
    int procs = c->quick ? PROCS_QUICK : PROCS_FULL, per = c->quick ? IDS_QUICK : IDS_FULL;
    proc_ids g = { .procs = procs + 1, .per = per };
    g.ids = malloc((size_t)(procs + 1) * (size_t)per * sizeof *g.ids);
    g.got = calloc((size_t)procs + 1, sizeof *g.got);
    int rc = g.ids && g.got ? 0 : idb_fail(err, IDB_ENOMEM, "out of memory");
    int one[2], distinct[2];
    int64_t dups[2];
    g.procs = procs;
    if (rc == 0 && (rc = exec_procs(c->exe ? c->exe : "/proc/self/exe", bin, &g, err)) == 0)
        tally(bin, &g, &one[0], &distinct[0], &dups[0]);
    g.procs = procs + 1;
    memset(g.got, 0, (size_t)g.procs * sizeof *g.got);
    if (rc == 0 && (rc = fork_procs(c->st, &g, err)) == 0)
        tally(c->st, &g, &one[1], &distinct[1], &dups[1]);
    free(g.ids);
    free(g.got);
    if (rc) return rc;
    claim_app(r->experiment, "exec: the idbench binary run %d times (`idbench gen %s -n %d`); "
              "fork: one instance used here, then %d children forked from it, %d IDs each, one "
              "manual clock inside one second; the per-process field read back by decode; "
              "checks: one value per process, a different one in every process, no ID twice; ",
              procs, bin->name, per, procs, per);
    claim_app(r->measured, "exec: %d of %d processes with one process value, %d distinct, %lld "
              "duplicate IDs" MEASURED "; fork: %d of %d processes (this one and %d children) "
              "with one value, %d distinct, %lld duplicate IDs" MEASURED "; ", one[0], procs,
              distinct[0],
              (long long)dups[0], one[1], procs + 1, procs, distinct[1], (long long)dups[1]);
    claim_check(r, one[0] == procs && distinct[0] == procs && dups[0] == 0,
                "exec: %d one-valued, %d distinct, %lld duplicates", one[0], distinct[0],
                (long long)dups[0]);
    claim_check(r, one[1] == procs + 1 && distinct[1] == procs + 1 && dups[1] == 0,
                "fork: %d one-valued, %d distinct, %lld duplicates", one[1], distinct[1],
                (long long)dups[1]);
    return 0;
}

/* Claim 7 (see the top). */
int claim_objectid(const claim_ctx *c, claim_row *r, idb_err *err)
{
    int rc = processes(c, r, err);
    if (rc) return rc;
    sim_workload w;
    claim_workload(&w, c->quick, "claim-objectid");
    w.instances = SIM_INSTANCES;
    w.outage_start_s = 1;
    w.outage_s = 1;
    sim_result res;
    if ((rc = claim_sim(&w, c->st, 0, &res, err))) return rc;
    claim_app(r->experiment, "simulator, %d instances, perfect clocks, counter server down for "
              "1 s; checks: no request to the counter server and 0 failed orders, 0 duplicates, "
              "inversion_frac > 0 and every inverted pair less than %d ms apart", SIM_INSTANCES,
              INVERSION_GAP_MS);
    claim_app(r->measured, "%lld requests to the counter server, %lld failed of %lld orders, "
              "%lld duplicates, inversion_frac %.4f, largest inverted gap %.3f ms" MEASURED,
              (long long)res.server_served, (long long)res.failed_orders, (long long)res.orders,
              (long long)res.duplicates, res.inversion_frac, res.max_inversion_gap_ms);
    claim_check(r, res.server_served == 0 && res.failed_orders == 0,
                "%lld requests, %lld failed orders", (long long)res.server_served,
                (long long)res.failed_orders);
    claim_check(r, res.duplicates == 0, "%lld duplicates", (long long)res.duplicates);
    claim_check(r, res.inversion_frac > 0 && res.max_inversion_gap_ms < INVERSION_GAP_MS,
                "inversion_frac %.4f, gap %.3f ms", res.inversion_frac, res.max_inversion_gap_ms);
    sim_result_free(&res);
    return 0;
}

/* cmd_ids.c — the commands about strategies themselves: list, help, gen, decode. */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ctrsrv.h"
#include "harness_kv.h"
#include "store.h"
#include "strategy.h"

#define GEN_COUNT_MAX (1LL << 40)     /* gen -n */
#define GEN_THREADS_MAX 256           /* gen -t */

static const char *coord_names[] = {
    [IDB_COORD_NONE] = "none",
    [IDB_COORD_PER_RANGE] = "per range",
    [IDB_COORD_PER_ID] = "per ID",
};

/* idbench list: one line per strategy, NAME<TAB>BITS<TAB>summary<TAB>CROSS_PROCESS (what it
 * promises about IDs of several processes: none, always, distinct-worker, shared-dir; see
 * enum idb_xproc in strategy.h). */
int cmd_list(int argc, char **argv)
{
    (void)argv;
    if (argc > 1) return cli_usage("list", "list takes no arguments");
    for (const idb_strategy *const *s = idb_strategies; *s; s++)
        printf("%s\t%d\t%s\t%s\n", (*s)->name, (*s)->bits, (*s)->summary,
               idb_xproc_name((*s)->cross_process));
    return 0;
}

/* Print a declared option table, one option per line with default, range and help. */
static void print_options(const idb_opt_decl *d)
{
    if (!d || !d->name) { printf("options: none\n"); return; }
    printf("options (-o KEY=VALUE for strategies, -s KEY=VALUE for stores):\n");
    for (; d->name; d++) {
        char range[96] = "";
        if (d->type == IDB_OPT_ENUM) snprintf(range, sizeof range, " [%s]", d->choices);
        else if (d->type == IDB_OPT_INT && (d->min || d->max))
            snprintf(range, sizeof range, " [%lld..%lld]", (long long)d->min, (long long)d->max);
        printf("  %s=%s%s\n      %s\n", d->name, d->def, range, d->help);
    }
}

/* idbench help [STRATEGY|STORE]: the options of a strategy or store, or the commands. */
int cmd_help(int argc, char **argv)
{
    if (argc == 1) {
        printf("usage:\n");
        for (const cli_command *c = cli_commands; c->name; c++) printf("  idbench %s\n", c->usage);
        return 0;
    }
    if (argc > 2) return cli_usage("help", "help takes one name");
    const idb_strategy *s = idb_strategy_find(argv[1]);
    if (s) {
        printf("%s: %s\nbits: %d\ntime-ordered: %s\ncoordination: %s\n", s->name, s->summary,
               s->bits, s->time_ordered ? "yes" : "no", coord_names[s->coord]);
        if (s->store_assigned)
            printf("keys: assigned by the store (insert: postgres, mariadb, galera only)\n");
        print_options(s->options);
        return 0;
    }
    const idb_store *st = idb_store_find(argv[1]);
    if (st) {
        printf("%s (store): %s\n", st->name, st->summary);
        print_options(st->options);
        return 0;
    }
    return cli_fail(IDB_EINPUT, "unknown strategy or store '%s' (see idbench list)", argv[1]);
}

/* What gen's threads share: the output lock, what was printed, and whether to stop. */
typedef struct gen_out {
    pthread_mutex_t lock;        /* guards stdout and the fields below */
    long long printed;           /* IDs written to stdout (whole lines) */
    int write_errno;             /* errno of the first failed write to stdout; 0: none */
    atomic_int stop;             /* 1 once a thread failed: the others stop making IDs */
} gen_out;

typedef struct gen_job {
    const idb_strategy *s;
    void *inst;
    long long count;
    gen_out *out;
    idb_err err;
    int rc;
} gen_job;

/* Append the job's buffer of n IDs to stdout under the shared lock and count them; a failed
 * write is recorded and stops every thread (nothing more is written). */
static void flush_out(gen_job *j, char *buf, size_t *len, long long *n)
{
    gen_out *o = j->out;
    pthread_mutex_lock(&o->lock);
    if (*len && !o->write_errno) {
        errno = 0;
        if (fwrite(buf, 1, *len, stdout) != *len || ferror(stdout)) {
            o->write_errno = errno ? errno : EIO;
            atomic_store(&o->stop, 1);
        } else {
            o->printed += *n;
        }
    }
    pthread_mutex_unlock(&o->lock);
    *len = 0;
    *n = 0;
}

/* One generating thread: count IDs from the shared instance, printed in 64 KiB chunks.
 * On a failure of next() it prints the IDs it made before it, then stops every thread. */
static void *gen_thread(void *arg)
{
    gen_job *j = arg;
    static _Thread_local char buf[1 << 16];
    size_t len = 0;
    long long n = 0;
    for (long long i = 0; i < j->count && !atomic_load_explicit(&j->out->stop,
                                                              memory_order_relaxed); i++) {
        idb_id id;
        j->rc = j->s->next(j->inst, &id, &j->err);
        if (j->rc) { atomic_store(&j->out->stop, 1); break; }
        if (len + IDB_TEXT_MAX + 1 > sizeof buf) flush_out(j, buf, &len, &n);
        j->s->format(&id, buf + len);
        len += strlen(buf + len);
        buf[len++] = '\n';
        n++;
    }
    flush_out(j, buf, &len, &n);
    return NULL;
}

/* Run threads jobs on inst (jobs[0] in this thread) and report how they ended: 0, or the
 * exit status after one line: a failed write to stdout, or the first thread's error with
 * how many of the count IDs were printed before gen stopped. */
static int gen_run(gen_job *jobs, int threads, long long count)
{
    pthread_t tids[GEN_THREADS_MAX];
    int started = 1, status = 0;
    for (; started < threads; started++)
        if (pthread_create(&tids[started], NULL, gen_thread, &jobs[started]) != 0) {
            atomic_store(&jobs[0].out->stop, 1);
            status = cli_fail(IDB_EIO, "cannot start thread %d", started);
            break;
        }
    if (!status) gen_thread(&jobs[0]);
    for (int t = 1; t < started; t++) pthread_join(tids[t], NULL);
    gen_out *o = jobs[0].out;
    if (status) return status;
    if (o->write_errno) return cli_stdout_failed(o->write_errno);
    for (int t = 0; t < threads; t++)
        if (jobs[t].rc)
            return cli_fail(IDB_EIO, "%s (gen stopped: %lld of %lld IDs printed)",
                            jobs[t].err.msg, o->printed, count);
    return 0;
}

/* gen's instance of s with the user's options kv: checked first (bad input starts no
 * server), then the counter server they ask for started (ctrsrv.h; its output never
 * reaches stdout) and its address added. Returns 0 with *inst and *cs (stop it after the
 * instance is destroyed), or the exit status after one line, with nothing left running. */
static int gen_instance(const idb_strategy *s, const cli_kv *kv, idb_ctrsrv *cs, void **inst)
{
    idb_err err = { 0 };
    memset(cs, 0, sizeof *cs);
    idb_opts *o = malloc(sizeof *o);
    char owner[IDB_OPT_NAME_MAX + sizeof "strategy "];
    snprintf(owner, sizeof owner, "strategy %s", s->name);
    int rc = o ? idb_opts_parse(o, s->options, kv->kv, kv->n, owner, &err)
               : idb_fail(&err, IDB_ENOMEM, "out of memory");
    free(o);
    if (!rc) rc = idb_ctrsrv_start(s, kv->kv, kv->n, NULL, cs, &err);
    idb_harness_place place = idb_harness_place_none();
    idb_harness_kv all;
    idb_ctrsrv_place(cs, &place);
    if (!rc) rc = idb_strategy_harness_kv(s, &place, kv->kv, kv->n, &all, &err);
    if (!rc) rc = idb_strategy_create_kv(s, all.kv, all.n, idb_clock_real(), inst, &err);
    if (rc) {
        idb_ctrsrv_stop(cs);
        return cli_fail_err(&err);
    }
    return 0;
}

/* idbench gen NAME [-n COUNT] [-t THREADS] [-o KEY=VALUE]... */
int cmd_gen(int argc, char **argv)
{
    static const struct option longopts[] = { { 0 } };
    long long count = 10, threads = 1;
    cli_kv kv = { 0 };
    int c, rc;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "n:t:o:", longopts, NULL)) != -1) {
        switch (c) {
        case 'n': if ((rc = cli_parse_count("-n", optarg, 0, GEN_COUNT_MAX, &count))) return rc;
                  break;
        case 't': if ((rc = cli_parse_count("-t", optarg, 1, GEN_THREADS_MAX, &threads)))
                      return rc;
                  break;
        case 'o': if ((rc = cli_kv_add(&kv, optarg))) return rc; break;
        default:
            return cli_usage("gen", "gen: unknown flag or missing value '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc - 1) return cli_usage("gen", "gen needs exactly one strategy name");
    const idb_strategy *s = idb_strategy_find(argv[optind]);
    if (!s) return cli_fail(IDB_EINPUT, "unknown strategy '%s' (see idbench list)", argv[optind]);

    void *inst;
    idb_ctrsrv cs;
    if ((rc = gen_instance(s, &kv, &cs, &inst))) return rc;
    gen_out out = { .lock = PTHREAD_MUTEX_INITIALIZER };
    gen_job jobs[GEN_THREADS_MAX];
    for (int t = 0; t < threads; t++)
        jobs[t] = (gen_job){ .s = s, .inst = inst, .out = &out,
                             .count = count / threads + (t < count % threads) };
    int status = gen_run(jobs, (int)threads, count);
    s->destroy(inst);
    idb_ctrsrv_stop(&cs);
    return status;
}

/* decode's emit callback: print KEY=VALUE. */
static void print_field(void *ctx, const char *key, const char *value)
{
    (void)ctx;
    printf("%s=%s\n", key, value);
}

/* idbench decode NAME ID [-o KEY=VALUE]... */
int cmd_decode(int argc, char **argv)
{
    static const struct option longopts[] = { { 0 } };
    cli_kv kv = { 0 };
    int c, rc;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:", longopts, NULL)) != -1) {
        if (c != 'o')
            return cli_usage("decode", "decode: unknown flag or missing value '%s'",
                             argv[optind - 1]);
        if ((rc = cli_kv_add(&kv, optarg))) return rc;
    }
    if (optind != argc - 2) return cli_usage("decode", "decode needs a strategy name and an ID");
    const idb_strategy *s = idb_strategy_find(argv[optind]);
    if (!s) return cli_fail(IDB_EINPUT, "unknown strategy '%s' (see idbench list)", argv[optind]);

    char owner[64];
    snprintf(owner, sizeof owner, "strategy %s", s->name);
    idb_err err = { 0 };
    idb_opts opts;
    idb_id id;
    if ((rc = idb_opts_parse(&opts, s->options, kv.kv, kv.n, owner, &err)))
        return cli_fail_err(&err);
    if ((rc = s->parse(argv[optind + 1], &id, &err))) return cli_fail_err(&err);
    if ((rc = s->decode(&opts, &id, print_field, NULL, &err))) return cli_fail_err(&err);
    return 0;
}

/* cmd_claims.c — `idbench claims [--quick] [--waits-store STORE|none] [--no-failover]`:
 * measures the chapter's claims (claims.h) and prints them as one markdown table on stdout,
 * only once every claim has run; how long each claim took goes to stderr. --waits-store:
 * the store of claim 8 (many writers; default postgres), checked before anything runs;
 * --no-failover: claims 10 and 11 (a replicated counter's failover, paused leased workers)
 * not run, "unknown".
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "claims.h"
#include "cli.h"
#include "store.h"

/* Seconds on the monotonic clock. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* idbench claims [--quick] [--waits-store S] [--no-failover]: the markdown table of the
 * chapter's claims. */
int cmd_claims(int argc, char **argv)
{
    static const struct option longopts[] = { { "quick", no_argument, NULL, 'q' },
                                              { "waits-store", required_argument, NULL, 'w' },
                                              { "no-failover", no_argument, NULL, 'f' },
                                              { 0 } };
    int quick = 0, no_failover = 0, c;
    const char *waits = NULL;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        if (c == 'q') quick = 1;
        else if (c == 'w') waits = optarg;
        else if (c == 'f') no_failover = 1;
        else return cli_usage("claims", "claims: unknown flag '%s'", argv[optind - 1]);
    }
    if (optind != argc) return cli_usage("claims", "claims takes no arguments");
    if (waits && strcmp(waits, "none") && !idb_store_find(waits))
        return cli_usage("claims", "claims: --waits-store: no store '%s' (see idbench list)",
                         waits);
    static claim_row rows[CLAIMS_N];
    claims_opts o = { .quick = quick, .waits_store = waits,      /* the registered strategies */
                      .no_failover = no_failover };
    idb_err err = { 0 };
    /* claims takes no input but --quick: a refusal inside a run is a runtime failure */
    for (int no = 1; no <= CLAIMS_N; no++) {
        double t0 = now_s();
        if (claims_run_one(no, &o, &rows[no - 1], &err) != 0)
            return cli_fail(err.code == IDB_EINPUT ? IDB_EIO : err.code, "claims: %s", err.msg);
        fprintf(stderr, "claims: %d %s: %s (%.1f s)\n", no, rows[no - 1].subject,
                claim_verdict_text(rows[no - 1].verdict), now_s() - t0);
    }
    claims_print_markdown(stdout, rows, CLAIMS_N);
    /* the table is larger than stdio's buffer: a write that failed while printing it has
     * left its reason in errno, which main()'s later check would no longer see */
    if (fflush(stdout) != 0 || ferror(stdout)) return cli_stdout_failed(errno);
    return 0;
}

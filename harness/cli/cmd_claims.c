/* cmd_claims.c — `idbench claims [--quick]`: measures the chapter's claims (claims.h) and
 * prints them as one markdown table on stdout, only once every claim has run.
 */
#include <getopt.h>
#include <stdio.h>

#include "claims.h"
#include "cli.h"

/* idbench claims [--quick]: the markdown table of the chapter's claims. */
int cmd_claims(int argc, char **argv)
{
    static const struct option longopts[] = { { "quick", no_argument, NULL, 'q' }, { 0 } };
    int quick = 0, c;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        if (c == 'q') quick = 1;
        else return cli_usage("claims", "claims: unknown flag '%s'", argv[optind - 1]);
    }
    if (optind != argc) return cli_usage("claims", "claims takes no arguments");
    claim_row rows[CLAIMS_N];
    idb_err err = { 0 };
    /* claims takes no input but --quick: a refusal inside a run is a runtime failure */
    if (claims_run(quick, rows, &err) != 0)
        return cli_fail(err.code == IDB_EINPUT ? IDB_EIO : err.code, "claims: %s", err.msg);
    claims_print_markdown(stdout, rows, CLAIMS_N);          /* main() checks the write */
    return 0;
}

/* cmd_collide.c — `idbench collide --bits B --rate R`: the birthday arithmetic of collide.h
 * as one csv table: how many random IDs, and how long at R IDs a second, until a collision
 * has a 50% and a 1e-9 chance.
 */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"
#include "collide.h"
#include "keys.h"

#define COLLIDE_BITS_MAX 1000

/* Write seconds as a short human duration ("86.0 years") into buf. */
static void human_time(double s, char *buf, size_t len)
{
    static const struct { double secs; const char *unit; } u[] = {
        { 365.25 * 86400, "years" }, { 86400, "days" }, { 3600, "hours" }, { 60, "minutes" },
        { 1, "seconds" }, { 1e-3, "ms" }, { 1e-6, "us" }, { 1e-9, "ns" },
    };
    for (size_t i = 0; i < sizeof u / sizeof *u; i++)
        if (s >= u[i].secs || i + 1 == sizeof u / sizeof *u) {
            snprintf(buf, len, "%.3g %s", s / u[i].secs, u[i].unit);
            return;
        }
}

/* Parse a finite positive decimal number for flag (no hex, inf or nan: idb_parse_double).
 * Returns 0 or the exit status after an error. */
static int parse_positive(const char *flag, const char *s, double *out)
{
    double v;
    if (idb_parse_double(s, &v) != 0 || v <= 0)
        return cli_fail(IDB_EINPUT, "%s: '%s' is not a positive number", flag, s);
    *out = v;
    return 0;
}

/* idbench collide --bits B --rate R: IDs and time to a 50% and a 1e-9 collision chance. */
int cmd_collide(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "bits", required_argument, NULL, 'b' }, { "rate", required_argument, NULL, 'r' }, { 0 },
    };
    double bits = 0, rate = 0;
    long long nbits = 0;
    int c, rc;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'b':
            if ((rc = cli_parse_count("--bits", optarg, 1, COLLIDE_BITS_MAX, &nbits))) return rc;
            bits = (double)nbits;
            break;
        case 'r': if ((rc = parse_positive("--rate", optarg, &rate))) return rc; break;
        default:
            return cli_usage("collide", "collide: unknown flag or missing value '%s'",
                             argv[optind - 1]);
        }
    }
    if (optind != argc) return cli_usage("collide", "collide takes no arguments besides its flags");
    if (bits == 0 || rate == 0) return cli_usage("collide", "collide needs --bits and --rate");
    printf("bits,rate_per_s,probability,ids,seconds,time\n");
    static const double ps[] = { 0.5, 1e-9 };
    for (size_t i = 0; i < sizeof ps / sizeof *ps; i++) {
        double n = collide_ids(bits, ps[i]), secs = n / rate;
        char human[64];
        human_time(secs, human, sizeof human);
        printf("%lld,%g,%g,%.6g,%.6g,%s\n", nbits, rate, ps[i], n, secs, human);
    }
    return 0;                                           /* main() checks the write */
}

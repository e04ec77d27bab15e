/* fuzz_workload.c — libFuzzer target: the workload reader (harness/sim/sim_workload.c),
 * as `idbench simulate FILE [--set S.K=V]... [--strategies LIST]` uses it.
 *
 * Input: a workload file, optionally followed by a line "%%" and then override lines:
 * "SECTION.KEY=VALUE" for --set, or "--strategies LIST". The file is written to a private
 * temporary directory and read with sim_workload_load; each override goes through
 * sim_workload_set or sim_workload_strategies. Checked for an accepted workload (a
 * refusal must say why):
 *   - the whole-workload checks pass, and the expected order count is finite and within
 *     SIM_MAX_ORDERS (what the simulator sizes its memory by);
 *   - its strategy list resolves to 1..SIM_MAX_STRATEGIES known strategies, each once;
 *   - every key name of the table is "section.key".
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "sim_workload.h"

#define SEPARATOR "\n%%\n"               /* between the file and the overrides */
#define OVERRIDES_MAX 16
#define STRATEGIES_FLAG "--strategies "

/* A refusal has a code and says why. */
static void check_refusal(int rc, const idb_err *err, const char *what)
{
    FUZZ_CHECK(rc == IDB_EINPUT && err->msg[0], "%s refused with %d and message '%s'", what, rc,
               err->msg);
}

/* The strategies resolved from w (list: the --strategies flag, or NULL). */
static void check_strategies(const sim_workload *w, const char *list)
{
    const idb_strategy *out[SIM_MAX_STRATEGIES];
    idb_err err = { 0 };
    int n = sim_workload_strategies(w, list, out, &err);
    if (n < 0) {
        FUZZ_CHECK(list != NULL, "the strategies of an accepted workload refused: %s", err.msg);
        check_refusal(n, &err, "--strategies");
        return;
    }
    FUZZ_CHECK(n >= 1 && n <= SIM_MAX_STRATEGIES, "%d strategies", n);
    for (int i = 0; i < n; i++) {
        FUZZ_CHECK(out[i] && idb_strategy_find(out[i]->name) == out[i], "entry %d unknown", i);
        for (int j = 0; j < i; j++)
            FUZZ_CHECK(out[i] != out[j], "%s listed twice", out[i]->name);
    }
}

/* An accepted workload keeps its rules. */
static void check_workload(const sim_workload *w)
{
    idb_err err = { 0 };
    FUZZ_CHECK(sim_workload_check(w, &err) == 0, "accepted, then refused: %s", err.msg);
    double n = sim_workload_expected_orders(w);
    FUZZ_CHECK(isfinite(n) && n >= 0 && n <= (double)SIM_MAX_ORDERS, "%g expected orders", n);
    check_strategies(w, NULL);
}

/* Apply the override lines to an accepted workload. */
static void overrides(sim_workload *w, char *text)
{
    char *lines[OVERRIDES_MAX];
    int n = fuzz_lines(text, lines, OVERRIDES_MAX);
    for (int i = 0; i < n; i++) {
        if (strncmp(lines[i], STRATEGIES_FLAG, strlen(STRATEGIES_FLAG)) == 0) {
            check_strategies(w, lines[i] + strlen(STRATEGIES_FLAG));
            continue;
        }
        idb_err err = { 0 };
        sim_workload saved = *w;
        int rc = sim_workload_set(w, lines[i], &err);
        if (rc != 0) {
            check_refusal(rc, &err, "--set");
            *w = saved;                   /* the command line stops here; go on with the rest */
        } else {
            check_workload(w);
        }
    }
}

/* One input: a workload file, then its overrides after a "%%" line. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int names_checked;
    if (!names_checked) {
        for (int i = 0; i < sim_workload_key_count(); i++)
            FUZZ_CHECK(strchr(sim_workload_key_name(i), '.'), "key %d", i);
        names_checked = 1;
    }
    char path[PATH_MAX];
    fuzz_tmp_path("fuzz.ini", path, sizeof path);
    char *text = fuzz_text(data, size);
    char *sep = strstr(text, SEPARATOR);
    size_t file_len = sep ? (size_t)(sep - text) : size;
    fuzz_write_file(path, data, file_len);
    static sim_workload w[1];
    idb_err err = { 0 };
    int rc = sim_workload_load(path, w, &err);
    if (rc != 0) {
        check_refusal(rc, &err, path);
    } else {
        check_workload(w);
        if (sep) overrides(w, sep + strlen(SEPARATOR));
    }
    free(text);
    return 0;
}

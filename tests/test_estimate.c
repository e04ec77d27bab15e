/* test_estimate.c — the matrix ETA comes from measured cell times only (mx_estimate on a
 * fake plan): a cell like a finished one takes its time scaled by IDs, other cells the
 * seconds per ID of their kind, cells of a kind that has not run have no estimate, and
 * the ETA text says so ("—", or ">" for a lower bound) instead of guessing.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "matrix.h"

static const idb_strategy fast = { .name = "fast" }, slow = { .name = "slow" };
static const idb_store disk = { .name = "disk" };

/* Cell i of p: kind, strategy, IDs, status and (when finished) seconds taken. */
static void cell(mx_plan *p, int i, enum mx_kind kind, const idb_strategy *s, int64_t ids,
                 enum mx_status status, double took)
{
    mx_cell *c = &p->cells[i];
    memset(c, 0, sizeof *c);
    c->kind = kind;
    c->strategy = s;
    c->store = s ? &disk : NULL;
    c->ids = ids;
    c->shards = 1;
    c->status = status;
    c->took_s = took;
    c->est_s = -1;
}

/* Nothing finished: no estimate at all, and the ETA says so. */
static void test_nothing_measured_no_eta(void **state)
{
    (void)state;
    mx_cell cells[3];
    mx_plan p = { .cells = cells, .n = 3 };
    cell(&p, 0, MX_GEN, NULL, 0, MX_PENDING, 0);
    cell(&p, 1, MX_INSERT, &fast, 1000, MX_PENDING, 0);
    cell(&p, 2, MX_CLAIMS, NULL, 0, MX_PENDING, 0);
    int unknown = -1;
    assert_true(mx_estimate(&p, &unknown) == 0);
    assert_int_equal(unknown, 3);
    for (int i = 0; i < 3; i++) assert_true(cells[i].est_s < 0);
    char buf[24];
    mx_fmt_eta(0, unknown, buf, sizeof buf);
    assert_string_equal(buf, "—");
}

/* Measured cells predict: alike by size, else the kind's seconds per ID or per cell. */
static void test_estimates_from_measured_cells(void **state)
{
    (void)state;
    mx_cell cells[8];
    mx_plan p = { .cells = cells, .n = 8 };
    cell(&p, 0, MX_GEN, NULL, 0, MX_DONE, 3);
    cell(&p, 1, MX_INSERT, &slow, 1000, MX_DONE, 2);       /* 2 ms per ID */
    cell(&p, 2, MX_INSERT, &fast, 1000, MX_FAILED, 0.2);   /* failed: still measured */
    cell(&p, 3, MX_INSERT, &slow, 4000, MX_PENDING, 0);    /* like 1, 4x the IDs: 8 s */
    cell(&p, 4, MX_INSERT, &fast, 500, MX_PENDING, 0);     /* like 2, half: 0.1 s */
    cell(&p, 5, MX_CURVE, &slow, 1000, MX_PENDING, 0);     /* no curve ran: unknown */
    cell(&p, 6, MX_SIM, NULL, 0, MX_DONE, 6);
    cell(&p, 7, MX_SIM, NULL, 0, MX_PENDING, 0);           /* the kind's mean: 6 s */
    int unknown = -1;
    double left = mx_estimate(&p, &unknown);
    assert_int_equal(unknown, 1);
    assert_true(cells[3].est_s > 7.999 && cells[3].est_s < 8.001);
    assert_true(cells[4].est_s > 0.0999 && cells[4].est_s < 0.1001);
    assert_true(cells[5].est_s < 0);
    assert_true(cells[7].est_s > 5.999 && cells[7].est_s < 6.001);
    assert_true(left > 14.099 && left < 14.101);
    char buf[24];
    mx_fmt_eta(left, unknown, buf, sizeof buf);
    assert_string_equal(buf, ">14s");

    /* another slow insert, unlike any finished one in shards: the kind's rate per ID */
    cell(&p, 5, MX_INSERT, &slow, 1100, MX_PENDING, 0);
    cells[5].shards = 4;
    left = mx_estimate(&p, &unknown);
    assert_int_equal(unknown, 0);
    assert_true(cells[5].est_s > 1.1 * 1.1 - 0.001 && cells[5].est_s < 1.1 * 1.1 + 0.001);
    mx_fmt_eta(250, unknown, buf, sizeof buf);
    assert_string_equal(buf, "4m10s");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nothing_measured_no_eta),
        cmocka_unit_test(test_estimates_from_measured_cells),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

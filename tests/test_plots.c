/* test_plots.c — the plot table (mx_plots) against the plots/ folder: every entry has a
 * script plots/NAME.gp and every script but common.gp an entry.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "matrix.h"

/* The table entry named name, or NULL. */
static const mx_plot *entry(const char *name)
{
    for (int i = 0; i < mx_n_plots; i++)
        if (strcmp(mx_plots[i].name, name) == 0) return &mx_plots[i];
    return NULL;
}

/* Every entry: a name, a title, both functions, a script; names unique. */
static void test_every_entry_has_a_script(void **state)
{
    (void)state;
    assert_true(mx_n_plots > 0 && mx_n_plots <= MX_PLOTS_MAX);
    for (int i = 0; i < mx_n_plots; i++) {
        const mx_plot *p = &mx_plots[i];
        assert_non_null(p->name);
        assert_non_null(p->title);
        assert_true(p->name[0] && p->title[0]);
        assert_non_null(p->prepare);
        assert_non_null(p->sentences);
        assert_ptr_equal(entry(p->name), p);
        char path[MX_FILE_MAX];
        snprintf(path, sizeof path, "%s/plots/%s.gp", mx_source_dir(), p->name);
        if (access(path, R_OK) != 0) fail_msg("plot table entry %s has no %s", p->name, path);
    }
}

/* Every plots/NAME.gp but common.gp: an entry of the table. */
static void test_every_script_has_an_entry(void **state)
{
    (void)state;
    char dir[MX_FILE_MAX];
    snprintf(dir, sizeof dir, "%s/plots", mx_source_dir());
    DIR *d = opendir(dir);
    assert_non_null(d);
    int scripts = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n <= 3 || strcmp(e->d_name + n - 3, ".gp") != 0) continue;
        if (strcmp(e->d_name, "common.gp") == 0) continue;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(n - 3), e->d_name);
        if (!entry(name)) fail_msg("plots/%s has no entry in the plot table", e->d_name);
        scripts++;
    }
    closedir(d);
    assert_int_equal(scripts, mx_n_plots);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_entry_has_a_script),
        cmocka_unit_test(test_every_script_has_an_entry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

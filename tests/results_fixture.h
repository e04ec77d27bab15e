/* results_fixture.h — the plot tests' crafted results directories: a file of a new
 * temporary directory to write rows into, then the directory loaded as the matrix loads a
 * run's results (mx_results_load). Include after cmocka.h. */
#ifndef IDB_RESULTS_FIXTURE_H
#define IDB_RESULTS_FIXTURE_H

#include <stdio.h>

#include "matrix.h"
#include "tmpdir.h"

/* A new temporary directory into dir (len bytes) and its file name opened for writing. */
static inline FILE *fixture_create(char *dir, size_t len, const char *name)
{
    assert_int_equal(idb_tmpdir_make(dir, len), 0);
    char path[MX_FILE_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    return f;
}

/* Close f (written by the test) and load the results directory dir into r. */
static inline void fixture_load(mx_results *r, const char *dir, FILE *f)
{
    assert_int_equal(fclose(f), 0);
    idb_err err = { 0 };
    assert_int_equal(mx_results_load(r, dir, &err), 0);
}

#endif

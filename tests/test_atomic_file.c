/* test_atomic_file.c — the atomic file writer (atomic_file.h): the written content, an old
 * file replaced whole, a failed commit leaving the old file and no temporary file, a rename
 * that fails, a path in a missing directory and a name too long failing with errno. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atomic_file.h"

#define CONTENT_MAX 256

/* A fresh temporary directory per test (the group state). */
static int make_dir(void **state)
{
    static char dir[64];
    strcpy(dir, "/tmp/idb_test_atomic.XXXXXX");
    if (!mkdtemp(dir)) return -1;
    *state = dir;
    return 0;
}

/* Remove the directory and whatever a test left in it. */
static int remove_dir(void **state)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", (const char *)*state);
    return system(cmd) == 0 ? 0 : -1;
}

/* The number of entries in dir besides . and .. */
static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

/* The content of path (at most CONTENT_MAX - 1 bytes) into buf; returns buf. */
static const char *content(const char *path, char *buf)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t n = fread(buf, 1, CONTENT_MAX - 1, f);
    fclose(f);
    buf[n] = 0;
    return buf;
}

/* path = dir/name */
static const char *in_dir(void **state, const char *name, char *path, size_t len)
{
    snprintf(path, len, "%s/%s", (const char *)*state, name);
    return path;
}

/* Writing gives exactly the text, replaces an old file whole, leaves no temporary file. */
static void test_write_and_replace(void **state)
{
    char path[PATH_MAX], buf[CONTENT_MAX];
    in_dir(state, "out.csv", path, sizeof path);
    assert_int_equal(idb_atomic_write(path, "a,b\n1,2\n", 8), 0);
    assert_string_equal(content(path, buf), "a,b\n1,2\n");
    assert_int_equal(idb_atomic_write(path, "x", 1), 0);
    assert_string_equal(content(path, buf), "x");
    assert_int_equal(entries(*state), 1);
    idb_atomic a;                                        /* the open/commit pair */
    assert_non_null(idb_atomic_open(&a, path));
    assert_int_equal(entries(*state), 2);                /* the temporary file, beside it */
    assert_string_equal(content(path, buf), "x");        /* readers still see the old file */
    fputs("new text", a.f);
    assert_int_equal(idb_atomic_commit(&a, 0), 0);
    assert_null(a.f);
    assert_string_equal(content(path, buf), "new text");
    assert_int_equal(entries(*state), 1);
}

/* The mode of a file written with umask mask, in a child (the umask is read once per
 * process). */
static mode_t mode_with_umask(void **state, mode_t mask, const char *name)
{
    char path[PATH_MAX];
    in_dir(state, name, path, sizeof path);
    pid_t pid = fork();
    if (pid == 0) {
        umask(mask);
        _exit(idb_atomic_write(path, "x", 1) == 0 ? 0 : 1);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    return sb.st_mode & 07777;
}

/* A file gets 0666 less the umask, as creat() would give it: readable by others under the
 * usual 022 (mkstemp alone made every results file 0600), private under 077. */
static void test_mode_honours_umask(void **state)
{
    assert_int_equal(mode_with_umask(state, 022, "a"), 0644);
    assert_int_equal(mode_with_umask(state, 077, "b"), 0600);
    assert_int_equal(mode_with_umask(state, 002, "c"), 0664);
}

/* A failed commit keeps the old file and removes the temporary one. */
static void test_failed_commit(void **state)
{
    char path[PATH_MAX], buf[CONTENT_MAX];
    in_dir(state, "keep.txt", path, sizeof path);
    assert_int_equal(idb_atomic_write(path, "old", 3), 0);
    idb_atomic a;
    assert_non_null(idb_atomic_open(&a, path));
    fputs("half of the new", a.f);
    errno = 0;
    assert_int_equal(idb_atomic_commit(&a, 1), -1);
    assert_int_equal(errno, EIO);
    assert_string_equal(content(path, buf), "old");
    assert_int_equal(entries(*state), 1);
}

/* A rename that fails (the target is a directory) removes the temporary file. */
static void test_failed_rename(void **state)
{
    char path[PATH_MAX];
    in_dir(state, "sub", path, sizeof path);
    assert_int_equal(mkdir(path, 0700), 0);
    errno = 0;
    assert_int_equal(idb_atomic_write(path, "text", 4), -1);
    assert_int_equal(errno, EISDIR);
    assert_int_equal(entries(*state), 1);                /* just sub/ */
}

/* A path in a missing directory, or too long a name, fails with errno; nothing made. */
static void test_bad_paths(void **state)
{
    char path[PATH_MAX];
    in_dir(state, "no/such/dir/f.csv", path, sizeof path);
    errno = 0;
    assert_int_equal(idb_atomic_write(path, "x", 1), -1);
    assert_int_equal(errno, ENOENT);
    idb_atomic a;
    errno = 0;
    assert_null(idb_atomic_open(&a, path));
    assert_int_equal(errno, ENOENT);
    static char long_path[PATH_MAX + 16];
    memset(long_path, 'p', sizeof long_path - 1);
    long_path[0] = '/';
    errno = 0;
    assert_null(idb_atomic_open(&a, long_path));
    assert_int_equal(errno, ENAMETOOLONG);
    assert_int_equal(entries(*state), 0);
}

/* Run every test of this file, each in its own directory. */
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_write_and_replace, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_mode_honours_umask, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_failed_commit, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_failed_rename, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_bad_paths, make_dir, remove_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

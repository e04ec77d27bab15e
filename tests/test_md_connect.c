/* test_md_connect.c — mariadb.h's md_connect against a fake server (no MariaDB needed): a
 * Unix socket whose listener accepts each connection and closes it before any greeting, as
 * a Galera joiner does until its state transfer is done.
 *   connect_wait_s 0: one try, IDB_EIO naming the socket;
 *   connect_wait_s 1: tried again (more than one connection accepted), then IDB_EIO;
 *   a socket nobody listens on: IDB_EIO at once, whatever connect_wait_s (not retried: a
 *   server that is not there does not come by waiting).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>
#include <mysql.h>

#include "mariadb.h"

static int listener = -1;
static int accepted;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char dir[] = "/tmp/idb-mdconn-XXXXXX";
static char path[100];

/* Accept and close at once, counting, until the listener is shut down. */
static void *serve(void *arg)
{
    (void)arg;
    for (;;) {
        int c = accept(listener, NULL, NULL);
        if (c < 0) return NULL;
        pthread_mutex_lock(&lock);
        accepted++;
        pthread_mutex_unlock(&lock);
        close(c);
    }
}

static int count(void)
{
    pthread_mutex_lock(&lock);
    int n = accepted;
    accepted = 0;
    pthread_mutex_unlock(&lock);
    return n;
}

/* md_connect on the socket p with connect_wait_s w: its return code; err's message. */
static int try_connect(const char *p, int w, idb_err *err)
{
    md_store *s = calloc(1, sizeof *s);
    assert_non_null(s);
    snprintf(s->socket, sizeof s->socket, "%s", p);
    s->connect_wait_s = w;
    int rc = md_connect(s, "nobody", err);
    if (s->db) mysql_close(s->db);
    free(s);
    return rc;
}

static void test_retried_only_when_asked(void **state)
{
    (void)state;
    idb_err err = { 0 };
    assert_int_equal(try_connect(path, 0, &err), IDB_EIO);
    assert_non_null(strstr(err.msg, path));
    assert_int_equal(count(), 1);
    assert_int_equal(try_connect(path, 1, &err), IDB_EIO);
    assert_true(count() > 1);
}

static void test_absent_server_not_retried(void **state)
{
    (void)state;
    char none[100];
    snprintf(none, sizeof none, "%s/none.sock", dir);
    idb_err err = { 0 };
    assert_int_equal(try_connect(none, 5, &err), IDB_EIO);
    assert_non_null(strstr(err.msg, "none.sock"));
    assert_int_equal(count(), 0);
}

int main(void)
{
    if (!mkdtemp(dir)) return 1;
    snprintf(path, sizeof path, "%s/fake.sock", dir);
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    listener = socket(AF_UNIX, SOCK_STREAM, 0);
    if (listener < 0 || bind(listener, (struct sockaddr *)&a, sizeof a) != 0 ||
        listen(listener, 16) != 0)
        return 1;
    pthread_t t;
    if (pthread_create(&t, NULL, serve, NULL) != 0) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_retried_only_when_asked),
        cmocka_unit_test(test_absent_server_not_retried),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    shutdown(listener, SHUT_RDWR);
    pthread_join(t, NULL);
    close(listener);
    unlink(path);
    rmdir(dir);
    return rc;
}

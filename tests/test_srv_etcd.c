/* test_srv_etcd.c — the etcd server kind (harness/servers/srv_etcd.c) and its JSON-gateway
 * client (etcd_http.h), against a real etcd (Debian etcd-server): a start outside the
 * private network namespace is refused; inside it etcd runs as the etcd user (as root),
 * its binary is /usr/bin/etcd and it is its own pid (env -C execs it), its client socket is
 * in the private socket directory, a lease granted over the socket has the asked TTL, a
 * create-if-absent transaction succeeds once and fails the second time, the key dies with
 * its lease (expiry after 2 s); a stop leaves no process and no socket directory. Root
 * only (exit 77: skipped otherwise, or without etcd). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "etcd_http.h"
#include "netns.h"
#include "server.h"

static int failures;
#define CHECK(cond, what)                                                                \
    do {                                                                                 \
        if (!(cond)) { fprintf(stderr, "FAIL: %s\n", what); failures++; }               \
    } while (0)

/* POST body to path on s's socket; the status, the answer in out. */
static int post(idb_server *s, const char *path, const char *body, char *out, size_t cap)
{
    idb_err e = { 0 };
    int st = idb_etcd_call(idb_server_socket(s), "POST", path, body, out, cap, 2000, &e);
    if (st != 200) fprintf(stderr, "  %s: %d %s %s\n", path, st, e.msg, out);
    return st;
}

/* The create-if-absent transaction of key (base64 k) with lease: 1 when it succeeded. */
static int create(idb_server *s, const char *k, const char *lease)
{
    char body[512], out[2048], v[16];
    snprintf(body, sizeof body, "{\"compare\":[{\"key\":\"%s\",\"target\":\"CREATE\","
             "\"result\":\"EQUAL\",\"create_revision\":\"0\"}],\"success\":[{\"request_put\":"
             "{\"key\":\"%s\",\"value\":\"eA==\",\"lease\":\"%s\"}}]}", k, k, lease);
    return post(s, "/v3/kv/txn", body, out, sizeof out) == 200 &&
           idb_etcd_field(out, "succeeded", v, sizeof v) && !strcmp(v, "true");
}

static void with_server(idb_server *s)
{
    char out[2048], lease[32] = "", ttl[16] = "", k[16], path[256];
    int pid = idb_server_pid(s);
    CHECK(strncmp(idb_server_version(s), "etcd 3.", 7) == 0, "version is etcd 3.x");
    snprintf(path, sizeof path, "/proc/%d/exe", pid);
    ssize_t n = readlink(path, out, sizeof out - 1);
    out[n > 0 ? n : 0] = 0;
    CHECK(strcmp(out, "/usr/bin/etcd") == 0, "the server pid is etcd itself (not env)");
    struct stat st;
    snprintf(path, sizeof path, "/proc/%d", pid);
    CHECK(stat(path, &st) == 0 && st.st_uid != 0, "etcd does not run as root");
    CHECK(strncmp(idb_server_socket(s), idb_server_socket_dir(s),
                  strlen(idb_server_socket_dir(s))) == 0 &&
          strstr(idb_server_socket(s), "/localhost:2379"), "socket in its private directory");
    CHECK(post(s, "/v3/lease/grant", "{\"TTL\":2}", out, sizeof out) == 200 &&
          idb_etcd_field(out, "ID", lease, sizeof lease) &&
          idb_etcd_field(out, "TTL", ttl, sizeof ttl) && !strcmp(ttl, "2"), "lease TTL 2");
    idb_etcd_base64("w/7", 3, k, sizeof k);
    CHECK(strcmp(k, "dy83") == 0, "base64");
    CHECK(create(s, k, lease), "create-if-absent: first succeeds");
    CHECK(!create(s, k, lease), "create-if-absent: second fails");
    sleep(4);                                          /* TTL 2 s, checked every 0.5 s */
    CHECK(create(s, k, lease) == 0, "an expired lease cannot hold a new key");
    post(s, "/v3/lease/grant", "{\"TTL\":2}", out, sizeof out);
    idb_etcd_field(out, "ID", lease, sizeof lease);
    CHECK(create(s, k, lease), "the key died with its lease: a new holder creates it");
}

int main(void)
{
    if (geteuid() != 0 || access("/usr/bin/etcd", X_OK) != 0) {
        printf("SKIP: needs root and etcd\n");
        return 77;
    }
    char dir[] = "/tmp/test-srv-etcd-XXXXXX", sub[64];
    if (!mkdtemp(dir)) return 1;
    chmod(dir, 0711);
    snprintf(sub, sizeof sub, "%s/etcd", dir);
    idb_server_conf c = { .kind = "etcd", .dir = sub };
    idb_server *s = NULL;
    idb_err err = { 0 };
    int rc = idb_server_start(&c, &s, &err);
    CHECK(rc == IDB_EUNAVAIL && strstr(err.msg, "namespace"), "refused outside a namespace");
    CHECK(idb_netns_private(&err) == 0, "private namespace");
    rc = idb_server_start(&c, &s, &err);
    CHECK(rc == 0, "etcd starts");
    if (rc) fprintf(stderr, "  %s\n", err.msg);
    if (rc == 0) {
        int pid = idb_server_pid(s);
        char sockdir[128];
        snprintf(sockdir, sizeof sockdir, "%s", idb_server_socket_dir(s));
        with_server(s);
        idb_server_stop(s);
        CHECK(kill(pid, 0) != 0 && errno == ESRCH, "no etcd process after the stop");
        CHECK(access(sockdir, F_OK) != 0, "socket directory removed");
    }
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) failures++;
    printf("%s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}

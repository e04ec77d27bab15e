/* test_servers.c — the server lifecycle of harness/servers, per kind: start and stop leave
 * no process and no socket directory; a setting reaches the server; a killed server is seen
 * as dead and restarts on the same data; TCP on loopback with the run's password only (a
 * client without it or with a wrong one gets nothing); a config file cut short leaves the
 * listen settings as they were (the command line's); a long dir; the preflight's
 * refusals (unknown kind, bad setting, missing binary, unreachable dir).
 * The kinds to test are in IDB_SERVER_KINDS (default: all); clients are the packages' CLIs.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <sys/shm.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "secret.h"
#include "server.h"
#include "tmpdir.h"
#include "shell_line.h"

#define CMD_LEN 4096
#define OUT_LEN 256
#define GONE_POLLS 500                 /* 0.01 s each: how long a stopped process may take */

/* Per kind: a setting and how to read it back, and how to write and read one value. */
typedef struct kind_case {
    const char *kind;
    const char *setting;               /* name=value given at start */
    const char *show;                  /* client command printing the setting's value */
    const char *want;                  /* what it prints */
    const char *write;                 /* client command storing 42 */
    const char *read;                  /* client command printing it back */
    const char *restart_setting;       /* a setting the restart test needs, or NULL */
    const char *broken;                /* a setting the server refuses at start */
    const char *tcp;                   /* over TCP, with the password SECRET: prints 42 */
} kind_case;

/* Client commands: SOCKDIR, SOCKET and PORT (postgres's, 5432 without TCP) are replaced. */
#define PSQL "psql -X -q -At -h SOCKDIR -p PORT -U idbench -d postgres -c "
#define MYSQL "mariadb -S SOCKET -u root -N -B -e "
#define REDIS "redis-cli -s SOCKET "
static const kind_case cases[] = {
    { "postgres", "shared_buffers=24MB", PSQL "'show shared_buffers'", "24MB",
      PSQL "'create table t(v int); insert into t values (42)'", PSQL "'select v from t'",
      NULL, "shared_buffers=lots",
      "PGPASSWORD=SECRET psql -X -w -At -h 127.0.0.1 -p PORT -U idbench -d postgres "
      "-c 'select 42'" },
    { "mariadb", "max_connections=77", MYSQL "'select @@max_connections'", "77",
      MYSQL "'create database d; create table d.t(v int primary key) engine=InnoDB; "
      "insert into d.t values (42)'", MYSQL "'select v from d.t'", NULL,
      "no_such_variable=1",
      "MYSQL_PWD=SECRET mariadb -h 127.0.0.1 -P PORT -u root -N -B -e 'select 42'" },
    { "redis", "maxclients=77", REDIS "--raw config get maxclients | sed -n 2p", "77",
      REDIS "set v 42", REDIS "get v", "appendonly=yes", "maxclients=lots",
      "REDISCLI_AUTH=SECRET redis-cli -h 127.0.0.1 -p PORT --raw echo 42" },
};

#define BASE_LEN 1024
static char base[BASE_LEN];            /* the test's scratch dir */
static int wrong_secret;               /* 1: SECRET expands to a wrong password */

/* Copy fmt into cmd with SOCKDIR, SOCKET, PORT and SECRET replaced by s's (shell_expand). */
static void expand(const idb_server *s, const char *fmt, char *cmd, size_t len)
{
    char port[16], secret[IDB_SECRET_MAX] = "none";
    snprintf(port, sizeof port, "%d", idb_server_port(s) ? idb_server_port(s) : 5432);
    if (*idb_server_secret_file(s))
        assert_int_equal(idb_secret_read(idb_server_secret_file(s), secret, sizeof secret,
                                         NULL), 0);
    if (wrong_secret) snprintf(secret, sizeof secret, "wrong");
    const shell_word subst[] = {
        { "SOCKDIR", idb_server_socket_dir(s) }, { "SOCKET", idb_server_socket(s) },
        { "PORT", port }, { "SECRET", secret },
    };
    shell_expand(fmt, subst, sizeof subst / sizeof *subst, cmd, len);
}

/* Run the client command fmt against s and put the first line of its output into out.
 * Returns its exit status. */
static int client(const idb_server *s, const char *fmt, char *out)
{
    char cmd[CMD_LEN];
    expand(s, fmt, cmd, sizeof cmd);
    return shell_first_line(cmd, out, OUT_LEN);
}

/* 1 when pid is gone (or a zombie) within the grace time. */
static int gone(int pid)
{
    char path[64], buf[512];
    for (int i = 0; i < GONE_POLLS; i++) {
        snprintf(path, sizeof path, "/proc/%d/stat", pid);
        FILE *f = fopen(path, "r");
        if (!f) return 1;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = 0;
        char *p = strrchr(buf, ')');
        if (p && p[1] && p[2] == 'Z') return 1;
        usleep(10000);
    }
    return 0;
}

/* 1 when idb_server_alive(s) says 0 within the grace time (a process with threads is
 * reaped only once every thread has ended). */
static int dies(idb_server *s)
{
    for (int i = 0; i < GONE_POLLS; i++) {
        if (!idb_server_alive(s)) return 1;
        usleep(10000);
    }
    return 0;
}

/* The kinds under test: IDB_SERVER_KINDS (comma-separated) or all. */
static int wanted(const char *kind)
{
    const char *env = getenv("IDB_SERVER_KINDS");
    if (!env || !*env) return 1;
    size_t n = strlen(kind);
    for (const char *p = env; (p = strstr(p, kind)); p += n)
        if ((p == env || p[-1] == ',') && (p[n] == 0 || p[n] == ',')) return 1;
    return 0;
}

/* Start kind in base/name with the given settings; fail the test when it does not start. */
static idb_server *start(const char *kind, const char *name, const char *const *settings,
                         int n, int tcp)
{
    char dir[BASE_LEN + CMD_LEN];
    snprintf(dir, sizeof dir, "%s/%s", base, name);
    idb_server_conf c = { .kind = kind, .dir = dir, .settings = settings, .nsettings = n,
                          .tcp = tcp };
    idb_server *s = NULL;
    idb_err err = { 0 };
    int rc = idb_server_start(&c, &s, &err);
    if (rc) fail_msg("%s: %s", kind, err.msg);
    return s;
}

/* rc must be 0; else fail naming kind and err's message. */
static void ok(int rc, const char *kind, const idb_err *err)
{
    if (rc) fail_msg("%s: %d: %s", kind, rc, err->msg);
}

/* Start, a setting reaches the server, stop: nothing left. */
static void test_start_stop(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const kind_case *k = &cases[i];
        if (!wanted(k->kind)) continue;
        char name[OUT_LEN];
        snprintf(name, sizeof name, "start-stop-%s", k->kind);
        idb_server *s = start(k->kind, name, &k->setting, 1, 0);
        char out[OUT_LEN], sockdir[CMD_LEN], path[CMD_LEN];
        int pid = idb_server_pid(s);
        assert_true(pid > 0);
        assert_int_equal(idb_server_alive(s), 1);
        assert_true(strlen(idb_server_socket(s)) < 108);
        assert_int_equal(access(idb_server_socket(s), F_OK), 0);
        assert_int_equal(idb_server_port(s), 0);
        assert_non_null(strchr(idb_server_version(s), '.'));
        assert_int_equal(client(s, k->show, out), 0);
        assert_string_equal(out, k->want);
        snprintf(sockdir, sizeof sockdir, "%s", idb_server_socket_dir(s));
        snprintf(path, sizeof path, "%s/%s.idbench-pid", base, name);
        struct stat rec;                        /* the record: beside the dir, idbench's */
        assert_int_equal(lstat(path, &rec), 0);
        assert_true(S_ISREG(rec.st_mode) && rec.st_uid == geteuid());
        assert_int_equal(rec.st_mode & 077, 0);
        idb_server_stop(s);
        assert_true(gone(pid));
        assert_int_equal(access(sockdir, F_OK), -1);
        assert_int_equal(access(path, F_OK), -1);
    }
}

/* Stop (SIGSTOP) every child of pid into kids (at most max); returns how many. A stopped
 * child outlives its killed parent until something kills it. */
static int stop_children(int pid, int *kids, int max)
{
    char path[300], buf[512];
    int n = 0;
    DIR *d = opendir("/proc");
    for (struct dirent *e; d && n < max && (e = readdir(d));) {
        int p = atoi(e->d_name);
        if (p <= 1) continue;
        snprintf(path, sizeof path, "/proc/%d/stat", p);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        size_t len = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[len] = 0;
        const char *q = strrchr(buf, ')');
        int ppid = 0;
        if (q && sscanf(q + 1, " %*c %d", &ppid) == 1 && ppid == pid && kill(p, SIGSTOP) == 0)
            kids[n++] = p;
    }
    if (d) closedir(d);
    return n;
}

/* The System V segment a postgres in base/NAME holds (its postmaster.pid's key line:
 * "KEY SHMID"), -1 for none or another kind. */
static int pg_segment(const char *name)
{
    char path[BASE_LEN + CMD_LEN], line[CMD_LEN] = "";
    snprintf(path, sizeof path, "%s/%s/data/postmaster.pid", base, name);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    for (int i = 1; i <= 7 && fgets(line, sizeof line, f); i++) {}
    fclose(f);
    long key = 0;
    int id = -1;
    return sscanf(line, "%ld %d", &key, &id) == 2 ? id : -1;
}

/* Segment id still exists (IPC_STAT answers). */
static int segment_exists(int id)
{
    struct shmid_ds ds;
    return id >= 0 && shmctl(id, IPC_STAT, &ds) == 0;
}

/* A killed server is dead, restarts on the same data with the same socket; children it
 * left (postgres's backends lead their own sessions; here stopped so they cannot exit by
 * themselves) are gone before the restart, which would fail on them. A postgres killed
 * (SIGKILL: it cannot release anything) leaves no System V segment once idbench has seen
 * it die, restarted or not. */
static void test_kill_restart(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const kind_case *k = &cases[i];
        if (!wanted(k->kind)) continue;
        char name[OUT_LEN];
        snprintf(name, sizeof name, "start-stop-%s", k->kind);   /* its data, initialised */
        idb_server *s = start(k->kind, name, &k->restart_setting, !!k->restart_setting, 0);
        char out[OUT_LEN], sock[CMD_LEN];
        idb_err err = { 0 };
        assert_int_equal(client(s, k->write, out), 0);
        int pid = idb_server_pid(s);
        snprintf(sock, sizeof sock, "%s", idb_server_socket(s));
        assert_int_equal(idb_server_restart(s, &err), IDB_EINPUT);     /* still running */
        int kids[16], nkids = stop_children(pid, kids, 16);
        int seg = pg_segment(name);
        assert_true(strcmp(k->kind, "postgres") != 0 || segment_exists(seg));
        kill(pid, SIGKILL);                                /* dies behind our back */
        assert_true(dies(s));
        for (int j = 0; j < nkids; j++) assert_true(gone(kids[j]));
        assert_false(segment_exists(seg));
        assert_int_equal(idb_server_kill(s, &err), IDB_EIO);          /* not running */
        ok(idb_server_restart(s, &err), k->kind, &err);
        assert_int_equal(idb_server_alive(s), 1);
        assert_string_equal(idb_server_socket(s), sock);
        assert_int_equal(client(s, k->read, out), 0);
        assert_string_equal(out, "42");
        pid = idb_server_pid(s);
        seg = pg_segment(name);
        assert_true(strcmp(k->kind, "postgres") != 0 || segment_exists(seg));
        assert_int_equal(idb_server_kill(s, &err), 0);                /* the fault itself */
        assert_true(gone(pid));
        assert_false(segment_exists(seg));
        assert_int_equal(idb_server_alive(s), 0);
        ok(idb_server_restart(s, &err), k->kind, &err);
        assert_int_equal(client(s, k->read, out), 0);
        assert_string_equal(out, "42");
        idb_server_stop(s);
    }
}

/* A server that exits while starting (on the data of test_start_stop): IDB_EIO, one line
 * naming its log, no pid file left. */
static void test_exits_at_start(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const kind_case *k = &cases[i];
        if (!wanted(k->kind)) continue;
        char dir[BASE_LEN + CMD_LEN], pidfile[BASE_LEN + 2 * CMD_LEN];
        snprintf(dir, sizeof dir, "%s/start-stop-%s", base, k->kind);
        snprintf(pidfile, sizeof pidfile, "%s.idbench-pid", dir);
        idb_server_conf c = { .kind = k->kind, .dir = dir, .settings = &k->broken,
                              .nsettings = 1 };
        idb_server *s = NULL;
        idb_err err = { 0 };
        assert_int_equal(idb_server_start(&c, &s, &err), IDB_EIO);
        assert_null(s);
        assert_non_null(strstr(err.msg, "exited while starting"));
        assert_non_null(strstr(err.msg, "/server.log"));
        assert_null(strchr(err.msg, '\n'));
        assert_int_equal(access(pidfile, F_OK), -1);
    }
}

/* 1 when a TCP connect to 127.0.0.1:port succeeds. */
static int tcp_accepts(int port)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    int ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
    if (fd >= 0) close(fd);
    return ok;
}

/* The file at path: 0600, owned by idbench's user (this process's). */
static void private_file(const char *path)
{
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal(st.st_mode & 07777, 0600);
    assert_int_equal(st.st_uid, geteuid());
}

/* Over TCP, kind k's server s answers with its secret and not with a wrong one. */
static void tcp_needs_secret(idb_server *s, const kind_case *k)
{
    char out[OUT_LEN];
    client(s, k->tcp, out);
    assert_string_equal(out, "42");
    wrong_secret = 1;
    client(s, k->tcp, out);
    wrong_secret = 0;
    assert_string_not_equal(out, "42");
}

/* tcp = 1: a loopback port that accepts, with the secret only (a client without it, or
 * with a wrong one, gets no answer); and a dir longer than a socket path may be. */
static void test_tcp_long_dir(void **state)
{
    (void)state;
    char name[BASE_LEN];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const kind_case *k = &cases[i];
        if (!wanted(k->kind)) continue;
        snprintf(name, sizeof name, "long-%0120d/%s", 0, k->kind);
        idb_server *s = start(k->kind, name, NULL, 0, 1);
        char out[OUT_LEN];
        assert_true(strlen(base) + strlen(name) > 107);
        assert_true(idb_server_port(s) > 0);
        assert_true(tcp_accepts(idb_server_port(s)));
        if (strcmp(k->kind, "redis") == 0) {        /* the password on the socket too */
            client(s, k->write, out);
            assert_non_null(strstr(out, "NOAUTH"));
        } else {
            assert_int_equal(client(s, k->write, out), 0);
        }
        private_file(idb_server_secret_file(s));
        tcp_needs_secret(s, k);
        int port = idb_server_port(s);
        idb_server_stop(s);
        assert_false(tcp_accepts(port));
    }
}

/* The listening sockets of pid into out, one a line: TCP ("ADDR:PORT", tcp = 1) or Unix
 * (paths, tcp = 0), as ss sees them. */
static void listeners(int pid, int tcp, char *out, size_t len)
{
    char cmd[CMD_LEN];
    snprintf(cmd, sizeof cmd, "ss -l%spH | grep 'pid=%d,' | awk '{ print $%d }'",
             tcp ? "tn" : "x", pid, tcp ? 4 : 5);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, len - 1, p);
    out[n] = 0;
    pclose(p);
}

/* With its config file emptied after it is written, each kind still listens only where
 * idbench says (its command line): its socket in its private directory, and loopback TCP
 * on its port with the password when asked; never 5432/3306/6379, another address or a
 * system socket directory. */
static void test_conf_cut_short(void **state)
{
    (void)state;
    char name[OUT_LEN], out[CMD_LEN], want[OUT_LEN];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        for (int tcp = 0; tcp <= 1; tcp++) {
            const kind_case *k = &cases[i];
            if (!wanted(k->kind)) continue;
            snprintf(name, sizeof name, "cut-%s-%d", k->kind, tcp);
            idb_servers_test_truncate_conf(1);
            idb_server *s = start(k->kind, name, NULL, 0, tcp);
            idb_servers_test_truncate_conf(0);
            listeners(idb_server_pid(s), 1, out, sizeof out);
            snprintf(want, sizeof want, "127.0.0.1:%d\n", idb_server_port(s));
            if (tcp) assert_string_equal(out, want);
            else assert_string_equal(out, "");
            listeners(idb_server_pid(s), 0, out, sizeof out);
            snprintf(want, sizeof want, "%s\n", idb_server_socket(s));
            assert_string_equal(out, want);
            if (tcp) tcp_needs_secret(s, k);
            idb_server_stop(s);
        }
}

/* The preflight's refusals: each one message, the right code. */
static void test_preflight(void **state)
{
    (void)state;
    char dir[CMD_LEN], locked[CMD_LEN];
    idb_err err = { 0 };
    snprintf(dir, sizeof dir, "%s/pre", base);
    idb_server_conf c = { .kind = "nosuch", .dir = dir };
    assert_int_equal(idb_server_preflight(&c, &err), IDB_EINPUT);
    assert_non_null(strstr(err.msg, "nosuch"));
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const kind_case *k = &cases[i];
        if (!wanted(k->kind)) continue;
        const char *bad[] = { "x='1'" };
        c = (idb_server_conf){ .kind = k->kind, .dir = dir, .settings = bad, .nsettings = 1 };
        assert_int_equal(idb_server_preflight(&c, &err), IDB_EINPUT);
        c.nsettings = 0;
        assert_int_equal(idb_server_preflight(&c, &err), 0);
        snprintf(locked, sizeof locked, "%s/locked", base);
        mkdir(locked, 0);
        chmod(locked, 0);
        snprintf(dir, sizeof dir, "%s/locked/shard-0", base);
        assert_int_equal(idb_server_preflight(&c, &err), IDB_EIO);
        assert_non_null(strstr(err.msg, "cannot reach"));
        snprintf(dir, sizeof dir, "%s/pre", base);
        static const char *const envs[] = { "IDBENCH_POSTGRES", "IDBENCH_INITDB",
            "IDBENCH_MARIADBD", "IDBENCH_MARIADB_INSTALL_DB", "IDBENCH_REDIS_SERVER" };
        int refused = 0;
        for (size_t e = 0; e < sizeof envs / sizeof *envs; e++) {
            setenv(envs[e], "/nonexistent/bin", 1);
            int rc = idb_server_preflight(&c, &err);
            unsetenv(envs[e]);
            if (rc == 0) continue;                          /* another kind's binary */
            refused++;
            assert_int_equal(rc, IDB_EIO);
            assert_non_null(strstr(err.msg, "/nonexistent/bin is missing"));
        }
        assert_true(refused > 0);
    }
}

static int setup(void **state)
{
    (void)state;
    if (idb_tmpdir_make(base, sizeof base) != 0) return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    idb_servers_stop_all();
    return idb_tmpdir_remove(base);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_start_stop),
        cmocka_unit_test(test_kill_restart),
        cmocka_unit_test(test_exits_at_start),
        cmocka_unit_test(test_tcp_long_dir),
        cmocka_unit_test(test_conf_cut_short),
        cmocka_unit_test(test_preflight),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

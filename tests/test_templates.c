/* test_templates.c — server data templates (harness/servers/template.c): a server started
 * from a template serves (a row written and read back) without running its initialiser, two
 * copies of one template are independent, a start that does not fit (postgres with TCP)
 * initialises as before, and a template another user could have written (the root or the
 * kind's directory open to others, a wrong owner, a symlink in its data) is refused with one
 * message and nothing started. Per kind: postgres, mariadb (skipped when not installed).
 * `test_templates fast` (the default suite): the refusals alone, on a template made by hand
 * (no server is started: a refused start fails before its server runs).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server.h"
#include "tmpdir.h"
#include "shell_line.h"

#define CMD_LEN 4096
#define OUT_LEN 256
#define PSQL "psql -X -q -At -h SOCKDIR -U idbench -d postgres -c "
#define MYSQL "mariadb -S SOCKET -u root -N -B -e "

/* Per kind: the settings the template and starts use, client commands (SOCKDIR, SOCKET
 * replaced), and a line only its initialiser writes to the server log. */
typedef struct kind_case {
    const char *kind;
    const char *setting;
    const char *write, *read, *absent;      /* absent: prints nothing where no table */
    const char *init_line;
    const char *data_file;                  /* a file of data/ a symlink replaces */
} kind_case;

static const kind_case cases[] = {
    { "postgres", "shared_buffers=16MB",
      PSQL "'create table t(v int); insert into t values (42)'", PSQL "'select v from t'",
      PSQL "\"select count(*) from pg_class where relname = 't'\"",
      "The files belonging to this database system", "PG_VERSION" },
    { "mariadb", "innodb_page_size=16384",
      MYSQL "'create database d; create table d.t(v int primary key) engine=InnoDB; "
      "insert into d.t values (42)'", MYSQL "'select v from d.t'",
      MYSQL "\"select count(*) from information_schema.tables where table_name = 't'\"",
      "Installing MariaDB/MySQL system tables", "mysql/db.frm" },
};

static char base[1024], root[1100];

/* The first line the client command fmt prints against s, into out; its exit status. */
static int client(const idb_server *s, const char *fmt, char *out)
{
    char cmd[CMD_LEN];
    const shell_word subst[] = {
        { "SOCKDIR", idb_server_socket_dir(s) }, { "SOCKET", idb_server_socket(s) },
    };
    shell_expand(fmt, subst, sizeof subst / sizeof *subst, cmd, sizeof cmd);
    return shell_first_line(cmd, out, OUT_LEN);
}

/* 1 when the server log in dir holds line. */
static int log_has(const char *dir, const char *line)
{
    char cmd[CMD_LEN];
    snprintf(cmd, sizeof cmd, "grep -qF '%s' '%s/server.log'", line, dir);
    return system(cmd) == 0;
}

/* Run the shell command fmt (printf arguments). Returns its status. */
static int sh(const char *fmt, ...)
{
    char cmd[CMD_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    return system(cmd);
}

static int setup(void **state)
{
    (void)state;
    if (idb_tmpdir_make(base, sizeof base) != 0) return -1;
    snprintf(root, sizeof root, "%s/templates", base);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    idb_servers_stop_all();
    idb_tmpdir_remove(base);
    unsetenv(IDB_SERVER_TEMPLATES_ENV);
    return 0;
}

/* A start from c's template: 0 or its error, the message in err. */
static int start(const kind_case *c, const char *name, int tcp, idb_server **s, idb_err *err)
{
    char dir[1200];
    snprintf(dir, sizeof dir, "%s/%s-%s", base, c->kind, name);
    const char *set[] = { c->setting };
    idb_server_conf conf = { .kind = c->kind, .dir = dir, .settings = set, .nsettings = 1,
                             .tcp = tcp };
    *s = NULL;
    return idb_server_start(&conf, s, err);
}

/* A start refused for the template's state: IDB_EINPUT, one line naming why, no server. */
static void refused(const kind_case *c, const char *name, const char *why)
{
    idb_server *s = NULL;
    idb_err err = { 0 };
    assert_int_equal(start(c, name, 0, &s, &err), IDB_EINPUT);
    assert_null(strchr(err.msg, '\n'));
    if (!strstr(err.msg, why)) fail_msg("%s: '%s' lacks '%s'", c->kind, err.msg, why);
    assert_null(s);
}

static void test_kind(const kind_case *c)
{
    char version[128], out[OUT_LEN], kdir[1200], path[1300];
    idb_err err = { 0 };
    if (idb_server_installed(c->kind, version, sizeof version, &err) != 0) {
        print_message("%s not installed: skipped\n", c->kind);
        return;
    }
    const char *set[] = { c->setting };
    assert_int_equal(idb_server_template_make(root, c->kind, set, 1, &err), 0);
    setenv(IDB_SERVER_TEMPLATES_ENV, root, 1);
    idb_server *a, *b;
    assert_int_equal(start(c, "a", 0, &a, &err), 0);
    assert_int_equal(start(c, "b", 0, &b, &err), 0);
    snprintf(path, sizeof path, "%s/%s-a", base, c->kind);
    assert_false(log_has(path, c->init_line));           /* copied, not initialised */
    assert_int_equal(client(a, c->write, out), 0);
    assert_int_equal(client(a, c->read, out), 0);
    assert_string_equal(out, "42");
    assert_int_equal(client(b, c->absent, out), 0);      /* b: its own data */
    assert_string_equal(out, "0");
    idb_server_stop(a);
    idb_server_stop(b);
    if (!strcmp(c->kind, "postgres")) {                  /* TCP: initdb sets the password */
        assert_int_equal(start(c, "tcp", 1, &a, &err), 0);
        snprintf(path, sizeof path, "%s/%s-tcp", base, c->kind);
        assert_true(log_has(path, c->init_line));
        idb_server_stop(a);
    }
    snprintf(kdir, sizeof kdir, "%s/%s", root, c->kind);
    assert_int_equal(sh("chmod 0770 '%s'", kdir), 0);
    refused(c, "mode", "open to others");
    assert_int_equal(sh("chmod 0700 '%s'", kdir), 0);
    assert_int_equal(sh("chown nobody '%s'", kdir), 0);
    refused(c, "owner", "not owned by uid");
    assert_int_equal(sh("chown --reference='%s/data' '%s'", kdir, kdir), 0);
    assert_int_equal(sh("chmod 0777 '%s'", root), 0);
    refused(c, "root", "writable by another user");
    assert_int_equal(sh("chmod 0711 '%s'", root), 0);
    snprintf(path, sizeof path, "%s/data/%s", kdir, c->data_file);
    assert_int_equal(sh("rm -f '%s' && ln -s /etc/shadow '%s'", path, path), 0);
    refused(c, "link", "holds a symlink");
    snprintf(path, sizeof path, "%s/%s-link/data.partial", base, c->kind);
    assert_int_not_equal(access(path, F_OK), 0);         /* the half copy went */
    unsetenv(IDB_SERVER_TEMPLATES_ENV);
}

static void test_postgres(void **state) { (void)state; test_kind(&cases[0]); }
static void test_mariadb(void **state) { (void)state; test_kind(&cases[1]); }

/* A postgres template made by hand in root (owned by the server user), with a symlink in
 * its data: each way another user could have written it is refused before a server runs. */
static void test_refusals(void **state)
{
    (void)state;
    char version[128], kdir[1200], path[1300];
    idb_err err = { 0 };
    const char *user = getenv("IDBENCH_SERVER_USER");
    struct passwd *pw = getpwnam(user && *user ? user : "postgres");
    if (idb_server_installed("postgres", version, sizeof version, &err) != 0 ||
        (geteuid() == 0 && !pw)) {
        print_message("postgres not installed: skipped\n");
        return;
    }
    snprintf(path, sizeof path, "%s/postgres-link", base);
    idb_server_conf probe = { .kind = "postgres", .dir = path };
    if (idb_server_preflight(&probe, &err) != 0) {          /* a TMPDIR it cannot reach */
        print_message("%s: skipped\n", err.msg);
        return;
    }
    char uid[32];
    snprintf(uid, sizeof uid, "%u", geteuid() == 0 ? (unsigned)pw->pw_uid : geteuid());
    snprintf(kdir, sizeof kdir, "%s/postgres", root);
    assert_int_equal(sh("mkdir -m 0711 '%s' && touch '%s.settings'", root, kdir), 0);
    assert_int_equal(sh("chmod 0600 '%s.settings' && mkdir -p -m 0700 '%s/data'", kdir, kdir),
                     0);
    assert_int_equal(sh("echo 15 > '%s/data/PG_VERSION' && ln -s /etc/passwd '%s/data/x'",
                        kdir, kdir), 0);
    assert_int_equal(sh("chown -R %s '%s' && chmod 0700 '%s'", uid, kdir, kdir), 0);
    setenv(IDB_SERVER_TEMPLATES_ENV, root, 1);
    refused(&cases[0], "link", "holds a symlink");
    snprintf(path, sizeof path, "%s/postgres-link/data.partial", base);
    assert_int_not_equal(access(path, F_OK), 0);         /* the half copy went */
    snprintf(path, sizeof path, "%s/postgres-link/data", base);
    assert_int_not_equal(access(path, F_OK), 0);
    assert_int_equal(sh("chmod 0750 '%s'", kdir), 0);
    refused(&cases[0], "mode", "open to others");
    assert_int_equal(sh("chmod 0700 '%s' && chown 0 '%s'", kdir, kdir), 0);
    if (geteuid() == 0) refused(&cases[0], "owner", "not owned by uid");
    assert_int_equal(sh("chown %s '%s'", uid, kdir), 0);
    assert_int_equal(sh("rm '%s/data/x' && mv '%s' '%s.real'", kdir, kdir, kdir), 0);
    assert_int_equal(sh("cd '%s' && ln -s postgres.real postgres", root), 0);
    refused(&cases[0], "kindlink", "a symlink or not a directory");     /* ROOT/KIND */
    assert_int_equal(sh("cd '%s' && rm postgres && mv postgres.real postgres", root), 0);
    assert_int_equal(sh("chmod 0620 '%s.settings'", kdir), 0);
    refused(&cases[0], "record", "only it can write");
    assert_int_equal(sh("chmod 0600 '%s.settings' && chmod 0777 '%s'", kdir, root), 0);
    refused(&cases[0], "root", "writable by another user");
    assert_int_equal(sh("chmod 0711 '%s'", root), 0);
    unsetenv(IDB_SERVER_TEMPLATES_ENV);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest slow[] = {
        cmocka_unit_test_setup_teardown(test_postgres, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mariadb, setup, teardown),
    };
    const struct CMUnitTest fast[] = {
        cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
    };
    if (argc > 1 && !strcmp(argv[1], "fast")) return cmocka_run_group_tests(fast, NULL, NULL);
    return cmocka_run_group_tests(slow, NULL, NULL);
}

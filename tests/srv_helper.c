/* srv_helper.c — a hidden test helper for tests/test_servers.sh: a process that holds
 * private servers until a signal, so the tests can interrupt or kill it (before any store
 * uses servers).
 *
 *   srv_helper [--no-deathsig] [--tcp] KIND:DIR [KIND:DIR...] [-- SETTING...]
 *   srv_helper --template KIND:ROOT... [-- SETTING...]
 *
 * Starts one server per KIND:DIR (settings for all), prints "pid PID socket SOCKET" per server
 * on stdout, then waits for a signal: SIGINT/SIGTERM/SIGHUP take the default idbench path
 * (tmpdir.h kills registered servers and dies). Exit 1 with "srv_helper: MESSAGE" on failure.
 * --template: make the server data template of each KIND in ROOT (idb_server_template_make)
 * and exit; starts with IDBENCH_SERVER_TEMPLATES=ROOT then copy it.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "server.h"
#include "tmpdir.h"

#define HELPER_SERVERS_MAX 8

int main(int argc, char **argv)
{
    idb_server_conf conf[HELPER_SERVERS_MAX] = { 0 };
    char spec[HELPER_SERVERS_MAX][4096];
    int n = 0, tcp = 0, i = 1, template = 0;
    idb_signals_catch(IDB_ON_SIGNAL_CLEAN_AND_DIE);
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (strcmp(argv[i], "--no-deathsig") == 0) idb_servers_test_no_deathsig(1);
        else if (strcmp(argv[i], "--tcp") == 0) tcp = 1;
        else if (strcmp(argv[i], "--template") == 0) template = 1;
        else if (n < HELPER_SERVERS_MAX && strchr(argv[i], ':')) {
            snprintf(spec[n], sizeof spec[n], "%s", argv[i]);
            char *colon = strchr(spec[n], ':');
            *colon = 0;
            conf[n].kind = spec[n];
            conf[n++].dir = colon + 1;
        } else {
            fprintf(stderr, "srv_helper: bad argument '%s'\n", argv[i]);
            return 2;
        }
    }
    if (i < argc) i++;
    for (int k = 0; k < n; k++) {
        idb_server *s;
        idb_err err = { 0 };
        conf[k].settings = (const char *const *)argv + i;
        conf[k].nsettings = argc - i;
        conf[k].tcp = tcp;
        if (template) {
            if (idb_server_template_make(conf[k].dir, conf[k].kind, conf[k].settings,
                                         conf[k].nsettings, &err) != 0) {
                fprintf(stderr, "srv_helper: %s\n", err.msg);
                return 1;
            }
            continue;
        }
        if (idb_server_start(&conf[k], &s, &err) != 0) {
            fprintf(stderr, "srv_helper: %s\n", err.msg);
            idb_servers_stop_all();
            return 1;
        }
        printf("pid %d socket %s port %d version %s\n", idb_server_pid(s),
               idb_server_socket(s), idb_server_port(s), idb_server_version(s));
    }
    fflush(stdout);
    if (template) return 0;
    for (;;) pause();
}

/* matrix_templates.c — the server data templates of a matrix run (issue 28): once per run,
 * before the first cell, a template per server kind the plan needs (postgres, mariadb) in
 * SCRATCH/templates (the run's scratch directory: removed with it on every exit path, and
 * by the recovery of a killed run), named to every cell through IDB_SERVER_TEMPLATES_ENV
 * (cells inherit the matrix's environment; a start checks the template it is given:
 * docs/servers.md "Templates"). A template that cannot be made is said and the cells
 * initialise their servers as without templates.
 */
#include "matrix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "server.h"
#include "store.h"

/* Which stores (by name) and counter backends (kill_run's first word) start which kind of
 * server, and the settings its init bakes in that the template is made with (the stores'
 * default page_size: a cell with another one initialises its own). */
static const struct {
    const char *kind;
    const char *stores[3];
    const char *backend;
    const char *settings[1];
    int nsettings;
} needs[] = {
    { "postgres", { "postgres" }, "postgres", { NULL }, 0 },
    { "mariadb", { "mariadb", "spider" }, NULL, { "innodb_page_size=16384" }, 1 },
};
#define NNEEDS (sizeof needs / sizeof *needs)

/* 1 when cell c starts a server of needs[i]'s kind. */
static int cell_needs(const mx_cell *c, size_t i)
{
    for (size_t j = 0; j < 3 && needs[i].stores[j]; j++)
        if (c->store && strcmp(c->store->name, needs[i].stores[j]) == 0) return 1;
    size_t bl = needs[i].backend ? strlen(needs[i].backend) : 0;
    return bl && (c->kind == MX_KILL || c->kind == MX_FAILOVER) &&
           strncmp(c->kill_run, needs[i].backend, bl) == 0 &&
           (c->kill_run[bl] == 0 || c->kill_run[bl] == ':');
}

void mx_templates_make(const mx_plan *p, const char *scratch)
{
    char root[MX_PATH_MAX], version[128];
    int made = 0;
    if (snprintf(root, sizeof root, "%s/templates", scratch) >= (int)sizeof root) return;
    for (size_t i = 0; i < NNEEDS; i++) {
        int need = 0;
        for (int c = 0; c < p->n && !need; c++) need = cell_needs(&p->cells[c], i);
        idb_err err = { 0 };
        if (!need || idb_server_installed(needs[i].kind, version, sizeof version, &err) != 0)
            continue;
        int64_t t0 = idb_mono_ns();
        if (idb_server_template_make(root, needs[i].kind, needs[i].settings,
                                     needs[i].nsettings, &err) != 0) {
            mx_progress_note(NULL, "no %s template (its cells initialise their own): %s",
                             needs[i].kind, err.msg);
            continue;
        }
        mx_progress_note(NULL, "%s template made in %.1f s", needs[i].kind,
                         (double)(idb_mono_ns() - t0) / 1e9);
        made++;
    }
    if (made) setenv(IDB_SERVER_TEMPLATES_ENV, root, 1);
}

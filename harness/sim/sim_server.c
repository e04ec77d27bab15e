/* sim_server.c — the counter server as a single-server FIFO queue (model: sim_server.h). */
#include "sim_server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WAITING_MIN 64                  /* first size of the ring of waiting requests */

/* take() of the counter server: one request (see sim_server.h). */
static int sim_server_take(idb_counter_service *svc, uint64_t n, uint64_t *first, idb_err *err)
{
    sim_server *c = (sim_server *)svc;
    int64_t sent = c->now_ns;
    c->requests++;
    if (sent >= c->out0_ns && sent < c->out1_ns) {
        c->refused_down++;
        return idb_fail(err, IDB_EUNAVAIL, "the counter server is down");
    }
    int64_t a = sent + c->half_rtt_ns;
    if (a < c->last_arrive_ns) a = c->last_arrive_ns;
    c->last_arrive_ns = a;
    while (c->wlen > 0 && c->waiting[c->whead] <= a) {     /* started by now: not waiting */
        c->whead = (c->whead + 1) % c->wcap;
        c->wlen--;
    }
    int64_t b = c->free_ns > a ? c->free_ns : a;
    if (b > a && c->wlen >= c->queue_max) {
        c->refused_full++;
        c->now_ns = a + c->half_rtt_ns;
        c->lat_ns += c->now_ns - sent;
        return idb_fail(err, IDB_EUNAVAIL, "the counter server's queue is full");
    }
    if (b > a) {                                           /* it waits: keep its start */
        if (c->wlen == c->wcap) {
            int64_t cap = c->wcap ? 2 * c->wcap : WAITING_MIN;
            int64_t *ring = malloc((size_t)cap * sizeof *ring);
            if (!ring) return idb_fail(err, IDB_ENOMEM, "out of memory for the server's queue");
            for (int64_t i = 0; i < c->wlen; i++) ring[i] = c->waiting[(c->whead + i) % c->wcap];
            free(c->waiting);
            c->waiting = ring;
            c->wcap = cap;
            c->whead = 0;
        }
        c->waiting[(c->whead + c->wlen++) % c->wcap] = b;
    }
    c->free_ns = b + c->service_ns;
    c->now_ns = c->free_ns + c->half_rtt_ns;
    c->lat_ns += c->now_ns - sent;
    c->served++;
    return c->backend->take(c->backend, n, first, err);
}

/* A fresh server for w, attached under name (see sim_server.h). */
int sim_server_init(sim_server *c, const sim_workload *w, const char *name, idb_err *err)
{
    char numbers[SIM_NAME_MAX + 16];
    snprintf(numbers, sizeof numbers, "%s-numbers", name);
    memset(c, 0, sizeof *c);
    idb_counter_inproc_reset(numbers);
    c->svc.take = sim_server_take;
    c->backend = idb_counter_inproc(numbers, err);
    if (!c->backend) return err->code;
    c->half_rtt_ns = (int64_t)(w->rtt_ms * 1e6) / 2;
    c->service_ns = (int64_t)(w->service_us * 1e3);
    c->queue_max = w->queue_max;
    c->out0_ns = c->out1_ns = INT64_MAX;
    if (w->outage_s > 0) {
        c->out0_ns = (int64_t)(w->outage_start_s * 1e9);
        c->out1_ns = (int64_t)((w->outage_start_s + w->outage_s) * 1e9);
    }
    c->last_arrive_ns = INT64_MIN;
    return idb_counter_attach(name, &c->svc, err);
}

/* Detach and free (see sim_server.h). */
void sim_server_free(sim_server *c, const char *name)
{
    if (c->svc.take) idb_counter_detach(name);
    free(c->waiting);
    c->waiting = NULL;
    c->wcap = c->wlen = c->whead = 0;
}

/* Reset the per-order figures; the order's first request is sent at t_ns. */
void sim_server_begin(sim_server *c, int64_t t_ns)
{
    c->now_ns = t_ns;
    c->lat_ns = 0;
    c->requests = 0;
}

/* Ping-pong: `pairs` pairs of units; in each, the pinger sends its ponger a
 * count, starting at 0, the ponger sends back the count plus one, and the
 * pinger sends that plus one again, until it has had `rounds` replies. Each
 * pinger then stops its ponger with STOP and keeps the last count it
 * received; the caller awaits every unit and sums the counts. A pair has one
 * message in flight at a time. */
#include "kit.h"
#include "coroutine.h"

#include <errno.h>
#include <stdlib.h>

#define STOP (-1)   /* counts are >= 0 */

struct ping_pong_params {
    int64_t pairs, rounds;
};

static int get_params(struct run *run, struct ping_pong_params *p)
{
    if (param_int(run, "pairs", 1, &p->pairs) < 0 || param_int(run, "rounds", 1, &p->rounds) < 0)
        return -1;
    return 0;
}

/* ---- pthread: a thread per unit, each with a one-slot mailbox ------------ */

/* Its owner waits on `arrived` until the slot is full. A send never finds it
 * full: the partner sends only after the owner's reply to the last one. */
struct mailbox {
    pthread_mutex_t lock;
    pthread_cond_t arrived;
    int64_t message;
    bool full;
};

static void mailbox_init(struct mailbox *m)
{
    pthread_mutex_init(&m->lock, NULL);
    pthread_cond_init(&m->arrived, NULL);
}

static void mailbox_destroy(struct mailbox *m)
{
    pthread_cond_destroy(&m->arrived);
    pthread_mutex_destroy(&m->lock);
}

static void mailbox_send(struct mailbox *m, int64_t message)
{
    pthread_mutex_lock(&m->lock);
    m->message = message;
    m->full = true;
    pthread_cond_signal(&m->arrived);
    pthread_mutex_unlock(&m->lock);
}

static int64_t mailbox_receive(struct mailbox *m)
{
    pthread_mutex_lock(&m->lock);
    while (!m->full)
        pthread_cond_wait(&m->arrived, &m->lock);
    m->full = false;
    int64_t message = m->message;
    pthread_mutex_unlock(&m->lock);
    return message;
}

struct thread_pair {
    struct run *run;
    int64_t rounds;
    struct mailbox pinger_inbox, ponger_inbox;
    int64_t last;   /* the pinger's last reply */
    pthread_t pinger, ponger;
    bool pinger_started, ponger_started;
};

static void *pinger_main(void *arg)
{
    struct thread_pair *pair = arg;
    unit_started(pair->run);
    int64_t reply = -1;   /* so that the first count sent is 0 */
    for (int64_t r = 0; r < pair->rounds; r++) {
        mailbox_send(&pair->ponger_inbox, reply + 1);
        reply = mailbox_receive(&pair->pinger_inbox);
    }
    mailbox_send(&pair->ponger_inbox, STOP);
    pair->last = reply;
    unit_finished(pair->run);
    return NULL;
}

static void *ponger_main(void *arg)
{
    struct thread_pair *pair = arg;
    unit_started(pair->run);
    for (int64_t count; (count = mailbox_receive(&pair->ponger_inbox)) != STOP;)
        mailbox_send(&pair->pinger_inbox, count + 1);
    unit_finished(pair->run);
    return NULL;
}

static int ping_pong_pthread(struct run *run)
{
    struct ping_pong_params p;
    if (get_params(run, &p) < 0)
        return -1;
    struct thread_pair *pairs = calloc((size_t)p.pairs, sizeof *pairs);
    if (!pairs)
        return run_syserr(run, "calloc", errno);
    for (int64_t i = 0; i < p.pairs; i++) {
        pairs[i] = (struct thread_pair){.run = run, .rounds = p.rounds};
        mailbox_init(&pairs[i].pinger_inbox);
        mailbox_init(&pairs[i].ponger_inbox);
    }
    /* If a thread cannot start, no more pairs are started; a ponger whose
     * pinger did not start is stopped by the caller. Every pair started
     * plays to its end and is joined. */
    for (int64_t i = 0; i < p.pairs; i++) {
        struct thread_pair *pair = &pairs[i];
        if (!(pair->ponger_started = thread_start(run, &pair->ponger, ponger_main, pair) == 0))
            break;
        if (!(pair->pinger_started = thread_start(run, &pair->pinger, pinger_main, pair) == 0)) {
            mailbox_send(&pair->ponger_inbox, STOP);
            break;
        }
    }
    int64_t count = 0;
    for (int64_t i = 0; i < p.pairs; i++) {
        struct thread_pair *pair = &pairs[i];
        if (pair->pinger_started)
            thread_join(run, pair->pinger);
        if (pair->ponger_started)
            thread_join(run, pair->ponger);
        count += pair->last;
        mailbox_destroy(&pair->pinger_inbox);
        mailbox_destroy(&pair->ponger_inbox);
    }
    free(pairs);
    if (run_failed(run))
        return -1;
    result_set(run, "count", count);
    return 0;
}

/* ---- coroutine: a send stores the message and switches to the partner ----
 *
 * The partner is always waiting for it (a pair has one message in flight),
 * so the switch is the whole hand-off: no scheduler, no queue. With no
 * scheduler to interleave them, the pairs take turns: the caller starts a
 * pair's pinger, which plays every round with its ponger and stops it, then
 * switches back to the caller, which starts the next pair on the same two
 * stacks. */

struct coro_game;

struct player {
    struct coro ctx;   /* first: the body finds its player from its context */
    struct coro_game *game;
};

struct coro_game {
    struct run *run;
    struct coro caller;
    struct player pinger, ponger;
    int64_t rounds;
    int64_t message;   /* the one in flight: STOP ends the ponger */
    int64_t last;      /* the pinger's last reply */
};

static void coro_pinger_main(struct coro *from, struct coro *self)
{
    (void)from;   /* the caller */
    struct coro_game *g = ((struct player *)self)->game;
    unit_started_local(g->run);
    int64_t reply = -1;   /* so that the first count sent is 0 */
    for (int64_t r = 0; r < g->rounds; r++) {
        g->message = reply + 1;
        coro_switch(self, &g->ponger.ctx);
        reply = g->message;
    }
    g->message = STOP;
    coro_switch(self, &g->ponger.ctx);   /* it ends, and switches back */
    g->last = reply;
    unit_finished_local(g->run);
    coro_switch(self, &g->caller);
    __builtin_unreachable();   /* finished: nothing resumes it */
}

static void coro_ponger_main(struct coro *from, struct coro *self)
{
    (void)from;   /* its pinger, with the first count */
    struct coro_game *g = ((struct player *)self)->game;
    unit_started_local(g->run);
    while (g->message != STOP) {
        g->message++;
        coro_switch(self, &g->pinger.ctx);
    }
    unit_finished_local(g->run);
    coro_switch(self, &g->pinger.ctx);
    __builtin_unreachable();
}

static int ping_pong_coroutine(struct run *run)
{
    struct ping_pong_params p;
    if (get_params(run, &p) < 0)
        return -1;
    struct coro_stacks stacks = {0};
    if (coro_stacks_new(run, &stacks, 2) < 0)
        return -1;
    struct coro_game g = {.run = run, .rounds = p.rounds};
    g.pinger.game = g.ponger.game = &g;
    int64_t count = 0;
    for (int64_t i = 0; i < p.pairs; i++) {
        coro_init(&g.pinger.ctx, coro_pinger_main, coro_stack_top(&stacks, 0));
        coro_init(&g.ponger.ctx, coro_ponger_main, coro_stack_top(&stacks, 1));
        coro_switch(&g.caller, &g.pinger.ctx);   /* returns when the pair is done */
        count += g.last;
    }
    coro_stacks_free(&stacks);
    result_set(run, "count", count);
    return 0;
}

const struct mechanism ping_pong_mechanisms[] = {
    {.name = "pthread", .run = ping_pong_pthread},
    {.name = "coroutine", .run = ping_pong_coroutine},
    {0},
};

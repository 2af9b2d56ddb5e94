/* concbench-loadgen --connections C --size S --rate R --requests N [--folder-fd FD] < SEED, then addresses
 *
 * concbench's load generator for served workloads (echo): one process beside
 * the trial, its client. Its stdin's first line is SEED. For each address it
 * reads from stdin after that, one a run
 * (tcp:127.0.0.1:PORT, or unix:NAME for the socket NAME in the folder open
 * on descriptor FD), opens C connections to it, sends N requests of S bytes
 * at R requests per second over them all, checks every echoed byte, closes
 * the connections and writes one JSON line to stdout:
 *     {"run": K, "requests": N, "bytes": N*S, "connect_ns": ..., "elapsed_ns": ...,
 *      "send_lag_ns": ..., "latency_ns": {"min": ..., "p50": ..., ..., "max": ...},
 *      "distribution": [[percentile, latency_ns], ...]}
 * On a failure it writes {"error": "..."} instead and exits 1; bad arguments
 * are one line on stderr and exit 2.
 *
 * The trial is untrusted. The request bytes follow from SEED, which the
 * harness draws for each trial, so a server cannot answer without reading
 * them. The trial runs as the same user, so SEED comes on stdin, not on the
 * command line (/proc/PID/cmdline is anyone's to read), and the generator
 * makes itself non-dumpable first, which closes its /proc/PID/mem, environ
 * and fd/ to processes of the same user. A unix socket is a plain name in the folder the harness opened before
 * the trial started: the generator opens the name there without following a
 * link, checks it is a socket and connects to that very file (through
 * /proc/self/fd), so neither the folder nor the name swapped for a link
 * after the harness checked the address redirects it.
 *
 * The load is open, as wrk2's: request i is due at t0 + i / R (t0 once all
 * connections are open) and goes on connection i % C, which has at most one
 * request outstanding. Its latency runs from its due time, not from when it
 * was sent, to its whole response: a server that stalls delays every request
 * queued behind the stall, and each of them counts it (coordinated omission
 * corrected). send_lag_ns is the generator's own lateness: the most a request
 * was sent after it was due while its connection was free to take it.
 *
 * One thread and epoll, woken at due times by epoll_pwait2's nanosecond
 * timeout with the timer slack at its least: a millisecond timeout would add
 * up to a millisecond to every latency. A sleeping CPU still wakes late (on
 * a virtual machine, some 70 us at the median after 10 ms asleep, against
 * 30 us after 100 us), so at low rates, where each sleep is long, it wakes
 * EARLY_NS before each due time and polls until it comes: at most
 * EARLY_NS / LONG_GAP_NS (a fifth) of a core, spent only at rates that leave
 * the server most of its own. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define NS_PER_S 1000000000LL
#define NS_PER_MS 1000000LL

/* The listener's backlog is capped at somaxconn (4096): connections beyond it
 * are refused or left waiting until the server accepts, and are retried,
 * each after a backoff that doubles up to a cap, until this deadline. */
#define CONNECT_DEADLINE_NS (60 * NS_PER_S)
#define FIRST_BACKOFF_NS NS_PER_MS
#define MAX_BACKOFF_NS (64 * NS_PER_MS)

#define MAX_EVENTS 1024

#define LONG_GAP_NS (500 * 1000LL) /* between due times: rates up to 2,000 per second */
#define EARLY_NS (100 * 1000LL)

/* ---- failing ---- */

static void usage_error(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fputs("concbench-loadgen: ", stderr);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    exit(2);
}

/* The run failed (the server lied, closed early, could not be reached): one
 * JSON line with the reason, the only thing on stdout after the runs done. */
static void fail(const char *format, ...)
{
    char message[1024];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    fputs("{\"error\": \"", stdout);
    for (const unsigned char *c = (const unsigned char *)message; *c; c++) {
        if (*c == '"' || *c == '\\')
            printf("\\%c", *c);
        else if (*c < 0x20)
            printf("\\u%04x", *c);
        else
            putchar(*c);
    }
    fputs("\"}\n", stdout);
    fflush(stdout);
    exit(1);
}

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * NS_PER_S + t.tv_nsec;
}

/* ---- the latency histogram ----
 * HdrHistogram's log-linear buckets at 3 significant digits: values below
 * 2048 ns have a bucket each; above, each power of two is cut into 1024
 * buckets, so a bucket is at most 1/1024 of its values wide. 2^43 ns (2.4
 * hours) and above fall into the last bucket. */

#define SUB_BITS 11
#define SUB_COUNT (1 << SUB_BITS)
#define HALF_COUNT (SUB_COUNT / 2)
#define TOP_BIT 42
/* the first SUB_COUNT, then HALF_COUNT for each power of two up to 2^TOP_BIT */
#define BUCKETS (SUB_COUNT + (TOP_BIT - SUB_BITS + 1) * HALF_COUNT)

struct histogram {
    uint64_t counts[BUCKETS];
    uint64_t total;
    unsigned __int128 sum;
    int64_t min, max;
};

static size_t bucket_of(int64_t value)
{
    uint64_t v = value < 0 ? 0 : (uint64_t)value;
    if (v < SUB_COUNT)
        return v;
    int shift = 63 - __builtin_clzll(v) - (SUB_BITS - 1);
    size_t index = (size_t)shift * HALF_COUNT + (v >> shift);
    return index < BUCKETS ? index : BUCKETS - 1;
}

/* The highest value that falls into a bucket, as HdrHistogram reports it. */
static int64_t highest_in_bucket(size_t index)
{
    if (index < SUB_COUNT)
        return (int64_t)index;
    int shift = (int)(index / HALF_COUNT) - 1;
    uint64_t sub = index - (uint64_t)shift * HALF_COUNT;
    return (int64_t)(((sub + 1) << shift) - 1);
}

static void record(struct histogram *h, int64_t value)
{
    h->counts[bucket_of(value)]++;
    if (h->total == 0 || value < h->min)
        h->min = value;
    if (h->total == 0 || value > h->max)
        h->max = value;
    h->total++;
    h->sum += (uint64_t)value;
}

/* The latency that `count` of the recorded ones are at or below: the highest
 * value of its bucket, as HdrHistogram reports it, but within the exact
 * minimum and maximum. */
static int64_t value_at_count(const struct histogram *h, uint64_t count)
{
    uint64_t seen = 0;
    if (count <= 1)
        return h->min;
    for (size_t i = 0; i < BUCKETS; i++) {
        seen += h->counts[i];
        if (seen >= count) {
            int64_t value = highest_in_bucket(i);
            return value < h->max ? value : h->max;
        }
    }
    return h->max;
}

static uint64_t count_at_percentile(const struct histogram *h, double percentile)
{
    double exact = percentile / 100.0 * (double)h->total;
    uint64_t count = (uint64_t)exact;
    if ((double)count < exact)
        count++;
    return count ? count : 1;
}

static int64_t value_at_percentile(const struct histogram *h, double percentile)
{
    return value_at_count(h, count_at_percentile(h, percentile));
}

/* The ticks of HdrHistogram's percentile distribution, two per halving of
 * the distance to 100 (0, 25, 50, 62.5, 75, 81.25, 87.5, ...), up to the
 * highest percentile the count resolves, then 100: at most 2 x 64 + 1. */
#define TICKS_PER_HALF 2

static void print_tick(double percentile, int64_t value, const char *after)
{
    char text[32];
    snprintf(text, sizeof text, "%.17g", percentile);
    printf("[%s%s, %lld]%s", text, strpbrk(text, ".e") ? "" : ".0", (long long)value, after);
}

static void print_distribution(const struct histogram *h)
{
    fputs("\"distribution\": [", stdout);
    print_tick(0, value_at_percentile(h, 0), ", ");
    for (int halving = 0; halving < 60; halving++) {
        double start = 100.0 - 100.0 / (double)(1ULL << halving);
        double width = 100.0 / (double)(2ULL << halving) / TICKS_PER_HALF;
        for (int tick = halving == 0; tick < TICKS_PER_HALF; tick++) {
            double percentile = start + tick * width;
            if (count_at_percentile(h, percentile) >= h->total)
                goto last;
            print_tick(percentile, value_at_percentile(h, percentile), ", ");
        }
    }
last:
    print_tick(100, h->max, "]");
}

/* ---- the requests ----
 * Request i's bytes are a function of the seed, i and their place in it, so
 * that any stretch of an echo can be checked without keeping what was sent. */

static uint64_t mix(uint64_t x)
{
    /* splitmix64's finaliser */
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* Bytes [from, to) of request `request` into out. */
static void fill_request(unsigned char *out, uint64_t seed, uint64_t request, size_t from, size_t to)
{
    size_t at = from;
    while (at < to) {
        uint64_t word = mix(seed ^ ((request << 20) | (at / 8))); /* sizes up to 8 MiB */
        size_t skip = at % 8, take = 8 - skip < to - at ? 8 - skip : to - at;
        memcpy(out + (at - from), (unsigned char *)&word + skip, take);
        at += take;
    }
}

/* ---- connections ---- */

enum state {
    WAITING,    /* to (re)try connecting at retry_at */
    CONNECTING, /* a non-blocking connect in progress */
    IDLE,       /* open, no request outstanding */
    BUSY,       /* request `request` sent up to `sent`, echoed up to `received` */
    DONE,       /* its last response is in */
};

struct connection {
    int fd;
    enum state state;
    uint64_t request;  /* the one outstanding, else the next one due on it */
    size_t sent, received;
    int waiting_for_room; /* watching EPOLLOUT: the socket took part of the request */
    uint64_t responses;
    int64_t retry_at, backoff;
};

struct address {
    const char *text;
    struct sockaddr_storage socket;
    socklen_t length;
    int socket_file; /* unix: the socket's file, opened O_PATH, or -1 */
};

struct options {
    long long connections, size, rate, requests;
    uint64_t seed;
    int folder; /* the descriptor of the folder unix: names are in, or -1 */
};

struct generator {
    struct options options;
    struct address target;
    int epoll;
    struct connection *connections;
    unsigned char *request_bytes, *expected_bytes, *received_bytes;
    struct histogram latency;
    int64_t start; /* t0: the first request's due time */
    int64_t poll_before_due; /* EARLY_NS at low rates, else 0 */
    int connect_error; /* the last retried one, for the message if connecting fails */
};

/* A name with no folder in it and no control character: it stays in its folder. */
static int plain_name(const char *name)
{
    if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return 0;
    for (const unsigned char *c = (const unsigned char *)name; *c; c++)
        if (*c == '/' || *c < 0x20 || *c == 0x7f)
            return 0;
    return 1;
}

/* The socket `name` in the folder: its file opened without following a
 * link, and the address of that very file. */
static void open_socket_file(struct address *a, int folder, const char *name)
{
    struct sockaddr_un *un = (struct sockaddr_un *)&a->socket;
    struct stat status;
    if (folder < 0)
        fail("bad address %s: a unix socket is a name in the folder of --folder-fd, which was not given", a->text);
    if (!plain_name(name))
        fail("bad address %s: a unix socket is a plain name, with no / and no control character", a->text);
    a->socket_file = openat(folder, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (a->socket_file < 0)
        fail("cannot connect to %s: %s", a->text, strerror(errno));
    if (fstat(a->socket_file, &status) < 0)
        fail("cannot connect to %s: %s", a->text, strerror(errno));
    if (!S_ISSOCK(status.st_mode))
        fail("cannot connect to %s: %s", a->text, S_ISLNK(status.st_mode) ? "a link, not a socket" : "not a socket");
    un->sun_family = AF_UNIX;
    snprintf(un->sun_path, sizeof un->sun_path, "/proc/self/fd/%d", a->socket_file);
    a->length = sizeof *un;
}

static void parse_address(struct address *a, char *line, int folder)
{
    if (a->socket_file >= 0)
        close(a->socket_file);
    memset(a, 0, sizeof *a);
    a->text = line;
    a->socket_file = -1;
    if (strncmp(line, "tcp:", 4) == 0) {
        char *colon = strrchr(line + 4, ':');
        struct sockaddr_in *in = (struct sockaddr_in *)&a->socket;
        char host[INET_ADDRSTRLEN];
        char *end;
        long port = colon ? strtol(colon + 1, &end, 10) : 0;
        size_t host_length = colon ? (size_t)(colon - line - 4) : 0;
        if (!colon || *end || port <= 0 || port > 65535 || host_length >= sizeof host)
            fail("bad address %s", line);
        memcpy(host, line + 4, host_length);
        host[host_length] = 0;
        in->sin_family = AF_INET;
        in->sin_port = htons((uint16_t)port);
        if (inet_pton(AF_INET, host, &in->sin_addr) != 1)
            fail("bad address %s", line);
        a->length = sizeof *in;
    } else if (strncmp(line, "unix:", 5) == 0) {
        open_socket_file(a, folder, line + 5);
    } else {
        fail("bad address %s (tcp:HOST:PORT or unix:NAME)", line);
    }
}

static void watch(struct generator *g, int operation, size_t index, uint32_t events)
{
    struct epoll_event event = {.events = events, .data.u64 = index};
    if (epoll_ctl(g->epoll, operation, g->connections[index].fd, &event) < 0)
        fail("epoll_ctl: %s", strerror(errno));
}

/* The errors of a listener that is there but has no room yet (a full
 * backlog: EAGAIN for unix sockets, refused or unanswered SYNs for tcp). */
static int worth_retrying(int error)
{
    return error == EAGAIN || error == ECONNREFUSED || error == ETIMEDOUT || error == ECONNRESET;
}

static void retry_later(struct connection *c, int64_t now)
{
    close(c->fd);
    c->fd = -1;
    c->state = WAITING;
    c->retry_at = now + c->backoff;
    c->backoff = c->backoff * 2 < MAX_BACKOFF_NS ? c->backoff * 2 : MAX_BACKOFF_NS;
}

static void opened(struct generator *g, size_t index)
{
    struct connection *c = &g->connections[index];
    if (g->target.socket.ss_family == AF_INET) {
        int on = 1;
        if (setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on) < 0)
            fail("TCP_NODELAY: %s", strerror(errno));
    }
    c->state = IDLE;
}

static void start_connecting(struct generator *g, size_t index, int64_t now)
{
    struct connection *c = &g->connections[index];
    c->fd = socket(g->target.socket.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c->fd < 0)
        fail("cannot open connection %zu: %s", index, strerror(errno));
    if (connect(c->fd, (struct sockaddr *)&g->target.socket, g->target.length) == 0) {
        watch(g, EPOLL_CTL_ADD, index, EPOLLIN);
        opened(g, index);
    } else if (errno == EINPROGRESS) {
        c->state = CONNECTING;
        watch(g, EPOLL_CTL_ADD, index, EPOLLOUT);
    } else if (worth_retrying(errno)) {
        g->connect_error = errno;
        retry_later(c, now);
    } else {
        fail("cannot connect to %s: %s", g->target.text, strerror(errno));
    }
}

/* Opens every connection, retrying those the listener has no room for yet. */
static void connect_all(struct generator *g)
{
    size_t count = (size_t)g->options.connections, open = 0;
    int64_t start = now_ns();
    struct epoll_event events[MAX_EVENTS];
    for (size_t i = 0; i < count; i++) {
        g->connections[i] = (struct connection){.fd = -1, .request = i, .backoff = FIRST_BACKOFF_NS};
        start_connecting(g, i, start);
    }
    g->connect_error = 0;
    for (;;) {
        int64_t now = now_ns(), next_retry = start + CONNECT_DEADLINE_NS;
        open = 0;
        for (size_t i = 0; i < count; i++) {
            struct connection *c = &g->connections[i];
            if (c->state == WAITING && c->retry_at <= now)
                start_connecting(g, i, now);
            if (c->state == WAITING && c->retry_at < next_retry)
                next_retry = c->retry_at;
            open += c->state == IDLE;
        }
        if (open == count)
            return;
        if (now - start > CONNECT_DEADLINE_NS)
            fail("cannot connect to %s: %zu of %zu connections open after %lld s%s%s", g->target.text, open, count,
                 CONNECT_DEADLINE_NS / NS_PER_S, g->connect_error ? ", the last refused: " : "",
                 g->connect_error ? strerror(g->connect_error) : "");
        int timeout_ms = (int)((next_retry - now + NS_PER_MS - 1) / NS_PER_MS);
        int ready = epoll_wait(g->epoll, events, MAX_EVENTS, timeout_ms > 0 ? timeout_ms : 1);
        if (ready < 0 && errno != EINTR)
            fail("epoll_wait: %s", strerror(errno));
        now = now_ns();
        for (int e = 0; e < ready; e++) {
            size_t index = events[e].data.u64;
            struct connection *c = &g->connections[index];
            int error = 0;
            socklen_t length = sizeof error;
            if (c->state != CONNECTING)
                continue;
            if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &error, &length) < 0)
                error = errno;
            if (error == 0) {
                watch(g, EPOLL_CTL_MOD, index, EPOLLIN);
                opened(g, index);
            } else if (worth_retrying(error)) {
                g->connect_error = error;
                retry_later(c, now); /* closing the descriptor took it out of the epoll set */
            } else {
                fail("cannot connect to %s: %s", g->target.text, strerror(error));
            }
        }
    }
}

/* ---- the load ---- */

static int64_t due(const struct generator *g, uint64_t request)
{
    return g->start + (int64_t)((unsigned __int128)request * NS_PER_S / (uint64_t)g->options.rate);
}

static uint64_t requests_on(const struct generator *g, size_t index)
{
    uint64_t n = (uint64_t)g->options.requests, c = (uint64_t)g->options.connections;
    return n / c + (index < n % c);
}

/* Writes what the socket takes of the connection's request; the rest when
 * it says it has room (EPOLLOUT). */
static void send_more(struct generator *g, size_t index)
{
    struct connection *c = &g->connections[index];
    size_t size = (size_t)g->options.size, before = c->sent;
    fill_request(g->request_bytes, g->options.seed, c->request, c->sent, size);
    while (c->sent < size) {
        ssize_t n = send(c->fd, g->request_bytes + (c->sent - before), size - c->sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EAGAIN)
            break;
        if (n < 0)
            fail("connection %zu, request %llu: send: %s (after %llu of %llu responses)", index,
                 (unsigned long long)c->request, strerror(errno), (unsigned long long)c->responses,
                 (unsigned long long)requests_on(g, index));
        c->sent += (size_t)n;
    }
    if (c->waiting_for_room != (c->sent < size)) {
        c->waiting_for_room = c->sent < size;
        watch(g, EPOLL_CTL_MOD, index, c->waiting_for_room ? EPOLLIN | EPOLLOUT : EPOLLIN);
    }
}

static void send_request(struct generator *g, size_t index)
{
    struct connection *c = &g->connections[index];
    c->state = BUSY;
    c->sent = c->received = 0;
    send_more(g, index);
}

/* Reads the connection's response, checks it and, once it is whole, records
 * its latency and sends the connection's next request if it is due. */
static void receive(struct generator *g, size_t index, int64_t *last_response)
{
    struct connection *c = &g->connections[index];
    size_t size = (size_t)g->options.size;
    size_t wanted = c->state == BUSY ? size - c->received : size;
    ssize_t n = recv(c->fd, g->received_bytes, wanted, 0);
    if (n < 0 && errno == EAGAIN)
        return;
    if (n <= 0) {
        char partial[64] = "";
        if (c->state == BUSY && c->received > 0)
            snprintf(partial, sizeof partial, " and %zu of %zu bytes of the next", c->received, size);
        if (n == 0)
            fail("server closed connection %zu after %llu of %llu responses%s", index,
                 (unsigned long long)c->responses, (unsigned long long)requests_on(g, index), partial);
        fail("connection %zu: recv: %s after %llu of %llu responses%s", index, strerror(errno),
             (unsigned long long)c->responses, (unsigned long long)requests_on(g, index), partial);
    }
    if (c->state != BUSY)
        fail("connection %zu: server sent %zd bytes with no request outstanding (after %llu of %llu responses)",
             index, n, (unsigned long long)c->responses, (unsigned long long)requests_on(g, index));
    fill_request(g->expected_bytes, g->options.seed, c->request, c->received, c->received + (size_t)n);
    if (memcmp(g->expected_bytes, g->received_bytes, (size_t)n) != 0) {
        size_t at = 0;
        while (g->expected_bytes[at] == g->received_bytes[at])
            at++;
        fail("connection %zu, request %llu: echoed byte %zu differs", index, (unsigned long long)c->request,
             c->received + at);
    }
    c->received += (size_t)n;
    if (c->received < size)
        return;
    int64_t now = now_ns();
    record(&g->latency, now - due(g, c->request));
    *last_response = now;
    c->responses++;
    c->request += (uint64_t)g->options.connections;
    if (c->responses == requests_on(g, index)) {
        c->state = DONE;
        watch(g, EPOLL_CTL_DEL, index, 0);
    } else if (due(g, c->request) <= now) {
        /* Due while its connection was busy: late by the server's doing. */
        send_request(g, index);
    } else {
        c->state = IDLE;
    }
}

struct run {
    int64_t connect_ns, elapsed_ns, send_lag_ns;
};

static struct run run_load(struct generator *g)
{
    struct run run = {0};
    uint64_t total = (uint64_t)g->options.requests, next = 0;
    size_t connections = (size_t)g->options.connections;
    int64_t last_response = 0;
    struct epoll_event events[MAX_EVENTS];

    memset(&g->latency, 0, sizeof g->latency);
    int64_t connecting = now_ns();
    connect_all(g);
    g->start = now_ns();
    run.connect_ns = g->start - connecting;

    while (g->latency.total < total) {
        int64_t now = now_ns();
        /* Each request that is due goes out now if its connection is free;
         * a busy one sends it when its response is in (receive). */
        for (; next < total && due(g, next) <= now; next++) {
            size_t index = (size_t)(next % connections);
            if (g->connections[index].state != IDLE)
                continue;
            int64_t lag = now_ns() - due(g, next);
            if (lag > run.send_lag_ns)
                run.send_lag_ns = lag;
            send_request(g, index);
        }
        struct timespec timeout, *until_due = NULL;
        if (next < total) {
            int64_t wait = due(g, next) - g->poll_before_due - now_ns();
            wait = wait > 0 ? wait : 0;
            timeout = (struct timespec){.tv_sec = wait / NS_PER_S, .tv_nsec = wait % NS_PER_S};
            until_due = &timeout;
        }
        int ready = epoll_pwait2(g->epoll, events, MAX_EVENTS, until_due, NULL);
        if (ready < 0 && errno != EINTR)
            fail("epoll_pwait2: %s", strerror(errno));
        for (int e = 0; e < ready; e++) {
            size_t index = events[e].data.u64;
            struct connection *c = &g->connections[index];
            if (c->state == BUSY && (events[e].events & EPOLLOUT) && c->sent < (size_t)g->options.size)
                send_more(g, index);
            if (events[e].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
                receive(g, index, &last_response);
        }
    }
    run.elapsed_ns = last_response - g->start;
    for (size_t i = 0; i < connections; i++)
        close(g->connections[i].fd);
    return run;
}

static void print_run(const struct generator *g, long long number, struct run run)
{
    const struct histogram *h = &g->latency;
    printf("{\"run\": %lld, \"requests\": %lld, \"bytes\": %lld, \"connect_ns\": %lld, \"elapsed_ns\": %lld, "
           "\"send_lag_ns\": %lld, ",
           number, g->options.requests, g->options.requests * g->options.size, (long long)run.connect_ns,
           (long long)run.elapsed_ns, (long long)run.send_lag_ns);
    printf("\"latency_ns\": {\"min\": %lld, \"mean\": %.0f, \"p50\": %lld, \"p90\": %lld, \"p99\": %lld, "
           "\"p999\": %lld, \"p9999\": %lld, \"max\": %lld}, ",
           (long long)h->min, (double)h->sum / (double)h->total, (long long)value_at_percentile(h, 50),
           (long long)value_at_percentile(h, 90), (long long)value_at_percentile(h, 99),
           (long long)value_at_percentile(h, 99.9), (long long)value_at_percentile(h, 99.99), (long long)h->max);
    print_distribution(h);
    puts("}");
    fflush(stdout);
}

/* ---- setting up ---- */

/* A whole number from `least` to `most`, as an option's value. */
static unsigned long long number(const char *name, const char *text, unsigned long long least, unsigned long long most)
{
    char *end;
    if (!text)
        usage_error("%s needs a value", name);
    errno = 0;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno || *end || end == text || *text == '-' || *text == '+' || value < least || value > most)
        usage_error("%s must be a whole number from %llu to %llu, not '%s'", name, least, most, text);
    return value;
}

static struct options parse_options(int argc, char **argv)
{
    struct options o = {.folder = -1};
    long long count_values[4] = {0};
    const char *counts[] = {"--connections", "--size", "--rate", "--requests"};
    for (int i = 1; i < argc; i += 2) {
        size_t k = 0;
        while (k < 4 && strcmp(argv[i], counts[k]) != 0)
            k++;
        if (k < 4)
            count_values[k] = (long long)number(argv[i], argv[i + 1], 1, LLONG_MAX);
        else if (strcmp(argv[i], "--folder-fd") == 0)
            o.folder = (int)number(argv[i], argv[i + 1], 0, INT_MAX);
        else
            usage_error("unknown argument '%s' (--connections --size --rate --requests --folder-fd)", argv[i]);
    }
    for (size_t k = 0; k < 4; k++)
        if (count_values[k] == 0)
            usage_error("%s is missing", counts[k]);
    o.connections = count_values[0], o.size = count_values[1], o.rate = count_values[2], o.requests = count_values[3];
    if (o.size > 1 << 23)
        usage_error("--size must be at most %d bytes", 1 << 23);
    return o;
}

/* As many descriptors as the hard limit allows: connections are the load. */
static void raise_descriptor_limit(void)
{
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
        limit.rlim_cur = limit.rlim_max;
        setrlimit(RLIMIT_NOFILE, &limit);
    }
}

/* The seed, stdin's first line: what no other process of the user can read. */
static uint64_t read_seed(char **line, size_t *capacity)
{
    if (getline(line, capacity, stdin) <= 0)
        usage_error("stdin ended before its first line, the seed");
    (*line)[strcspn(*line, "\n")] = 0;
    return number("the seed (stdin's first line)", *line, 0, UINT64_MAX);
}

int main(int argc, char **argv)
{
    /* Before anything holds the seed: a trial of the same user could read
     * a dumpable generator's memory (there may be no Yama to stop it). */
    prctl(PR_SET_DUMPABLE, 0UL);
    char *line = NULL;
    size_t capacity = 0;
    struct generator g = {.options = parse_options(argc, argv), .target.socket_file = -1};
    g.options.seed = read_seed(&line, &capacity);
    size_t size = (size_t)g.options.size;
    raise_descriptor_limit();
    prctl(PR_SET_TIMERSLACK, 1UL); /* wake at due times, not up to 50 us after */
    g.poll_before_due = NS_PER_S / g.options.rate >= LONG_GAP_NS ? EARLY_NS : 0;
    g.epoll = epoll_create1(EPOLL_CLOEXEC);
    g.connections = calloc((size_t)g.options.connections, sizeof *g.connections);
    g.request_bytes = malloc(size);
    g.expected_bytes = malloc(size);
    g.received_bytes = malloc(size);
    if (g.epoll < 0 || !g.connections || !g.request_bytes || !g.expected_bytes || !g.received_bytes)
        fail("cannot set up: %s", strerror(errno));

    /* The harness closes stdin when the trial exits: as many runs as it
     * announced, which a steady warm-up decides as it goes. */
    for (long long number = 1; getline(&line, &capacity, stdin) > 0; number++) {
        line[strcspn(line, "\n")] = 0; /* what is left is the address: a \r in it makes it a bad one */
        parse_address(&g.target, line, g.options.folder);
        struct run run = run_load(&g);
        print_run(&g, number, run);
    }
    return 0;
}

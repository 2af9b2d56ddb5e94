// Echo: a server under concbench's load generator. Before the clocks
// (prepare) the listener is opened, on 127.0.0.1 with a port the kernel
// picks or at <scratch>/echo.sock, with a backlog of `connections`, and
// announced (listener_announce); in the run the mechanism accepts exactly
// `connections` connections and, on each, writes back every byte it reads
// until EOF, then closes it; after the clocks (finish) the listener is
// closed and its path removed. TCP connections get TCP_NODELAY.
//
// held: the most connections open in the server at once, counted +1 at
// accept and -1 at close.
#include "lib/asio.hpp"
#include "lib/kit.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

// A read takes a whole request, or a page if requests are smaller.
constexpr int64_t buffer_min = 4096;

struct listener {
    kit::run &r;
    int64_t connections, buffer;
    bool tcp;
    int fd = -1;
    std::string path;

    explicit listener(kit::run &r_)
        : r(r_), connections(kit::count(r_, "connections", 1)), buffer(std::max(kit::count(r_, "size", 1), buffer_min)),
          tcp(kit::choice(r_, "transport", {"tcp", "unix", nullptr}) == 0)
    {
        // A server holds a descriptor per connection: the soft limit is
        // raised to the hard one, as servers do.
        rlimit lim;
        if (getrlimit(RLIMIT_NOFILE, &lim) < 0)
            kit::syserr(r, "getrlimit", errno);
        lim.rlim_cur = lim.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &lim) < 0)
            kit::syserr(r, "setrlimit", errno);
        if ((fd = socket(tcp ? AF_INET : AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
            kit::syserr(r, "socket", errno);
        int rc;
        if (tcp) {
            sockaddr_in addr = {};
            addr.sin_family = AF_INET;
            addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            rc = bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr);
        } else {
            sockaddr_un addr = {};
            addr.sun_family = AF_UNIX;
            path = std::string(r.scratch) + "/echo.sock";
            path.copy(addr.sun_path, sizeof addr.sun_path - 1);
            rc = bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr);
        }
        if (rc < 0)
            kit::syserr(r, "bind", errno);
        if (listen(fd, int(connections)) < 0)
            kit::syserr(r, "listen", errno);
        if (listener_announce(&r, fd) < 0)
            kit::fail(r);
    }
    ~listener()
    {
        if (fd >= 0)
            close(fd);
        if (!path.empty())
            unlink(path.c_str());
    }
};

// The connections open at once, and the most of them.
struct held {
    std::atomic<int64_t> open = 0, most = 0;

    void opened()
    {
        int64_t now = open.fetch_add(1) + 1;
        for (int64_t seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);)
            ;
    }
    void closed() { open.fetch_sub(1); }
};

static void report(kit::run &r, int64_t connections, int64_t bytes, held &h)
{
    result_set(&r, "connections", connections);
    result_set(&r, "bytes", bytes);
    evidence_set(&r, "held", h.most);
}

// The caller accepts (blocking accept(2)) and hands each connection to a
// std::jthread of its own, which echoes with blocking read and write.
static void echo_thread(kit::run &r)
{
    auto &l = kit::state<listener>(r);
    held h;
    std::atomic<int64_t> bytes = 0;
    {
        std::vector<std::jthread> units;
        for (int64_t c = 0; c < l.connections; c++) {
            int fd = accept4(l.fd, nullptr, nullptr, SOCK_CLOEXEC);
            if (fd < 0)
                kit::syserr(r, "accept4", errno);
            h.opened();
            int on = 1;
            if (l.tcp && setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on) < 0)
                kit::syserr(r, "setsockopt", errno);
            units.push_back(kit::thread(r, [&, fd] {
                std::vector<char> buffer(l.buffer);
                int64_t echoed = 0;
                for (ssize_t n; (n = read(fd, buffer.data(), buffer.size())) != 0; echoed += n)
                    if (n < 0 || write_all(&r, fd, buffer.data(), size_t(n)) < 0) {
                        run_syserr(&r, "read", errno);
                        break;
                    }
                close(fd);
                h.closed();
                bytes.fetch_add(echoed);
            }));
        }
    }
    kit::check(r);
    report(r, l.connections, bytes, h);
}

// The run's coroutine accepts with asio's acceptor (adopting the listener)
// and spawns a coroutine per connection, which echoes with async_read_some
// and async_write.
template <class Protocol>
awaitable<void> serve(loop &lp, listener &l, held &h, std::atomic<int64_t> &bytes, Protocol protocol)
{
    typename Protocol::acceptor acceptor(lp.ctx, protocol, l.fd);
    l.fd = -1;   // the acceptor's now
    group units(lp);
    for (int64_t c = 0; c < l.connections; c++) {
        auto socket = co_await acceptor.async_accept(use_awaitable);
        h.opened();
        if constexpr (std::is_same_v<Protocol, asio::ip::tcp>)
            socket.set_option(asio::ip::tcp::no_delay(true));
        units.spawn([&, socket = std::move(socket)]() mutable -> awaitable<void> {
            std::vector<char> buffer(l.buffer);
            int64_t echoed = 0;
            for (;;) {
                error_code ec;
                size_t n =
                    co_await socket.async_read_some(asio::buffer(buffer), asio::redirect_error(use_awaitable, ec));
                if (ec == asio::error::eof)
                    break;
                if (ec)
                    throw boost::system::system_error(ec, "read");
                co_await asio::async_write(socket, asio::buffer(buffer.data(), n), use_awaitable);
                echoed += n;
            }
            socket.close();
            h.closed();
            bytes.fetch_add(echoed);
        });
    }
    co_await units.join();
}

static void echo_asio(kit::run &r)
{
    auto &[lp, l] = kit::state<with_loop<listener>>(r);
    held h;
    std::atomic<int64_t> bytes = 0;
    if (l.tcp)
        lp.run(serve(lp, l, h, bytes, asio::ip::tcp::v4()));
    else
        lp.run(serve(lp, l, h, bytes, asio::local::stream_protocol()));
    report(r, l.connections, bytes, h);
}

const struct mechanism echo_mechanisms[] = {
    kit::row("thread", kit::guarded<echo_thread>, kit::make<listener>, kit::unmake<listener>),
    asio_row_with<listener>(kit::guarded<echo_asio>),
    asio_mt_row_with<listener>(kit::guarded<echo_asio>),
    {},
};

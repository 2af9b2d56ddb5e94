// Mailbox: a sender sends the payloads 1..`messages` in order to a
// receiver's mailbox of at most `capacity` (0: no bound); the receiver
// counts, sums and checksums (k x payload of its k-th message, modulo
// 1,000,000,007) exactly `messages` messages and hands its totals back.
#include "lib/asio.hpp"
#include "lib/kit.hpp"
#include "lib/queue.hpp"

constexpr int64_t modulus = 1'000'000'007;

struct totals {
    int64_t count = 0, sum = 0, ordered = 0, blocked = 0;

    void take(int64_t payload)
    {
        count++;
        sum += payload;
        ordered = (ordered + count % modulus * (payload % modulus)) % modulus;
    }
};

static void report(kit::run &r, const totals &received, int64_t sender_blocked)
{
    result_set(&r, "count", received.count);
    result_set(&r, "sum", received.sum);
    result_set(&r, "ordered", received.ordered);
    evidence_set(&r, "blocked", received.blocked + sender_blocked);
}

// Two std::jthreads; the mailbox a blocking queue.
static void mailbox_thread(kit::run &r)
{
    int64_t messages = kit::count(r, "messages", 1), capacity = kit::count(r, "capacity");
    blocking_queue<int64_t> mailbox(capacity);
    totals received;
    int64_t sender_blocked = 0;
    {
        auto receiver = kit::thread(r, [&] {
            for (int64_t i = 0, payload; i < messages; i++) {
                received.blocked += mailbox.pop(payload);
                received.take(payload);
            }
        });
        auto sender = kit::thread(r, [&] {
            for (int64_t payload = 1; payload <= messages; payload++)
                sender_blocked += mailbox.push(payload);
        });
    }
    kit::check(r);
    report(r, received, sender_blocked);
}

// Two coroutines; the mailbox a channel.
static void mailbox_asio(kit::run &r)
{
    int64_t messages = kit::count(r, "messages", 1), capacity = kit::count(r, "capacity");
    loop &l = loop_of(r);
    channel<int64_t> mailbox(l.ctx, capacity_of(capacity));
    totals received;
    int64_t sender_blocked = 0;
    l.run([&]() -> awaitable<void> {
        group units(l);
        units.spawn([&]() -> awaitable<void> {
            for (int64_t i = 0; i < messages; i++)
                received.take(co_await take(mailbox, received.blocked));
        });
        units.spawn([&]() -> awaitable<void> {
            for (int64_t payload = 1; payload <= messages; payload++)
                co_await give(mailbox, payload, sender_blocked);
        });
        co_await units.join();
    });
    report(r, received, sender_blocked);
}

const struct mechanism mailbox_mechanisms[] = {
    kit::row("thread", kit::guarded<mailbox_thread>),
    asio_row(kit::guarded<mailbox_asio>),
    asio_mt_row(kit::guarded<mailbox_asio>),
    {},
};

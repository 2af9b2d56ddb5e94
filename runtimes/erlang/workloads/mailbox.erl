%% Mailbox (workloads/mailbox.toml): a sender unit sends the payloads
%% 1..`messages` in order to a receiver unit's mailbox, which holds at most
%% `capacity` messages (0: no bound); the receiver takes exactly `messages`,
%% counting and summing them and adding k x payload of its k-th message to a
%% checksum modulo 1,000,000,007, and hands its totals back to the caller.
-module(concbench_mailbox).

-export([process/1]).

-define(MODULUS, 1_000_000_007).

%% A process's mailbox has no bound, so a bounded one is credit-based flow
%% control, Erlang's idiom for it: the sender starts with `capacity`
%% credits, spends one per send, and the receiver acks every message it
%% takes, giving one back; sent minus acked never exceeds `capacity`.
%% Unbounded (0), the sender has credit for every message and the receiver
%% sends no acks.
%%
%% blocked: sends that found no credit (the mailbox full: no ack waiting,
%% `after 0`) and takes that found the mailbox empty, each then made as the
%% receive that waits; each unit counts its own.
-spec process(concbench_kit:run()) -> map().
process(Run) ->
    Messages = concbench_kit:param(Run, messages),
    Capacity = concbench_kit:param(Run, capacity),
    {Receiver, _} = concbench_kit:spawn_unit(Run, fun() ->
        receive
            {sender, AckTo} -> {taken, take(AckTo, Messages, 0, 0, 0, 0)}
        end
    end),
    {Sender, _} = concbench_kit:spawn_unit(Run, fun() ->
        {sent, send(Receiver, 1, Messages, credit(Capacity, Messages), 0)}
    end),
    Receiver ! {sender, ack_to(Capacity, Sender)},
    {{Count, Sum, Ordered, Taken}, Sent} = concbench_kit:await_units(2, fun keep/2, {none, none}),
    #{
        result => #{count => Count, sum => Sum, ordered => Ordered},
        evidence => #{blocked => Sent + Taken}
    }.

credit(0, Messages) -> Messages;
credit(Capacity, _) -> Capacity.

ack_to(0, _Sender) -> none;
ack_to(_, Sender) -> Sender.

%% The sender's loop: the count of sends that waited for credit.
send(_Receiver, Payload, Messages, _Credit, Blocked) when Payload > Messages ->
    Blocked;
send(Receiver, Payload, Messages, 0, Blocked) ->
    receive
        ack -> send(Receiver, Payload, Messages, 1, Blocked)
    after 0 ->
        receive
            ack -> send(Receiver, Payload, Messages, 1, Blocked + 1)
        end
    end;
send(Receiver, Payload, Messages, Credit, Blocked) ->
    Receiver ! {payload, Payload},
    send(Receiver, Payload + 1, Messages, Credit - 1, Blocked).

%% The receiver's loop, K messages taken so far.
take(_AckTo, Messages, Messages, Sum, Ordered, Blocked) ->
    {Messages, Sum, Ordered, Blocked};
take(AckTo, Messages, K, Sum, Ordered, Blocked) ->
    receive
        {payload, Payload} -> taken(AckTo, Messages, K, Sum, Ordered, Blocked, Payload)
    after 0 ->
        receive
            {payload, Payload} -> taken(AckTo, Messages, K, Sum, Ordered, Blocked + 1, Payload)
        end
    end.

taken(AckTo, Messages, K, Sum, Ordered, Blocked, Payload) ->
    ack(AckTo),
    Checksum = (Ordered + (K + 1) rem ?MODULUS * (Payload rem ?MODULUS)) rem ?MODULUS,
    take(AckTo, Messages, K + 1, Sum + Payload, Checksum, Blocked).

ack(none) -> ok;
ack(Sender) -> Sender ! ack.

keep({taken, Totals}, {_, Sent}) -> {Totals, Sent};
keep({sent, Blocked}, {Totals, _}) -> {Totals, Blocked}.

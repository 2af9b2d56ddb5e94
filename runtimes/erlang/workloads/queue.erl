%% Queue (workloads/queue.toml): per group one queue; its `producers` units
%% each push 1..`items`, and once every producer is done, one stop token per
%% consumer is pushed (by the producer that finished last); its `consumers`
%% units pop until they get a stop token, counting and summing what they
%% popped.
-module(concbench_queue).

-export([process/1]).

-define(STOP_TOKEN, 0). % items are 1..items

%% A queue process's state: its items, their number (queue:len/1 walks the
%% queue), and the requests waiting for room or for an item, oldest first.
-record(queue, {
    items = queue:new() :: queue:queue(integer()),
    length = 0 :: non_neg_integer(),
    bound :: pos_integer() | infinity,
    producing :: non_neg_integer(),
    pushers = queue:new() :: queue:queue({pid(), integer()}),
    poppers = queue:new() :: queue:queue(pid())
}).

%% A group's queue is a process holding a stdlib queue of at most
%% `capacity` items (0: no bound, `infinity`, above every integer in
%% Erlang's term order). A push or pop is a request it answers once it can:
%% a push into a full queue or a pop from an empty one waits in its queue
%% of waiting pushers or poppers until a pop or push frees it, and the
%% answer says whether the request waited. The queue process is a helper,
%% not a unit (the spec counts producers and consumers).
%%
%% blocked: pushes that found the queue full and pops that found it empty,
%% as the queue process saw them, each unit counting its own answers.
-spec process(concbench_kit:run()) -> map().
process(Run) ->
    Groups = concbench_kit:param(Run, groups),
    Producers = concbench_kit:param(Run, producers),
    Consumers = concbench_kit:param(Run, consumers),
    Items = concbench_kit:param(Run, items),
    Bound =
        case concbench_kit:param(Run, capacity) of
            0 -> infinity;
            Capacity -> Capacity
        end,
    Queues = [start_group(Run, Bound, Producers, Consumers, Items) || _ <- lists:seq(1, Groups)],
    Totals = concbench_kit:await_units(Groups * (Producers + Consumers), fun add/2, {0, 0, 0}),
    [Queue ! stop || Queue <- Queues],
    {Count, Sum, Blocked} = Totals,
    #{result => #{count => Count, sum => Sum}, evidence => #{blocked => Blocked}}.

start_group(Run, Bound, Producers, Consumers, Items) ->
    Queue = spawn_link(fun() -> serve(#queue{bound = Bound, producing = Producers}) end),
    [concbench_kit:spawn_unit(Run, fun() -> produce(Queue, Items, Consumers) end) || _ <- lists:seq(1, Producers)],
    [concbench_kit:spawn_unit(Run, fun() -> consume(Queue, 0, 0, 0) end) || _ <- lists:seq(1, Consumers)],
    Queue.

%% A producer: the pushes that waited, its own and, if it finished last,
%% those of the stop tokens. The queue process tells it whether it was last.
produce(Queue, Items, Consumers) ->
    Blocked = push_all(Queue, 1, Items, 0),
    Queue ! {produced, self()},
    receive
        {last, true} -> {0, 0, push_tokens(Queue, Consumers, Blocked)};
        {last, false} -> {0, 0, Blocked}
    end.

push_all(_Queue, Item, Items, Blocked) when Item > Items ->
    Blocked;
push_all(Queue, Item, Items, Blocked) ->
    push_all(Queue, Item + 1, Items, Blocked + push(Queue, Item)).

push_tokens(_Queue, 0, Blocked) -> Blocked;
push_tokens(Queue, Tokens, Blocked) -> push_tokens(Queue, Tokens - 1, Blocked + push(Queue, ?STOP_TOKEN)).

%% One push, answered once the item is in: 1 if it waited for room.
push(Queue, Item) ->
    Queue ! {push, self(), Item},
    receive
        {pushed, Waited} -> count(Waited)
    end.

%% A consumer: pops until a stop token; its count, sum and pops that waited.
consume(Queue, Count, Sum, Blocked) ->
    Queue ! {pop, self()},
    receive
        {popped, ?STOP_TOKEN, Waited} -> {Count, Sum, Blocked + count(Waited)};
        {popped, Item, Waited} -> consume(Queue, Count + 1, Sum + Item, Blocked + count(Waited))
    end.

count(true) -> 1;
count(false) -> 0.

serve(State) ->
    receive
        {push, From, Item} ->
            serve(handle_push(From, Item, State));
        {pop, From} ->
            serve(handle_pop(From, State));
        {produced, From} ->
            Producing = State#queue.producing - 1,
            From ! {last, Producing =:= 0},
            serve(State#queue{producing = Producing});
        stop ->
            stopped
    end.

%% A push goes to the oldest waiting popper, else into the queue if it has
%% room, else waits.
handle_push(From, Item, #queue{items = Items, length = Length, bound = Bound, pushers = Pushers, poppers = Poppers} = State) ->
    case queue:out(Poppers) of
        {{value, Popper}, Waiting} ->
            Popper ! {popped, Item, true},
            From ! {pushed, false},
            State#queue{poppers = Waiting};
        {empty, _} when Length < Bound ->
            From ! {pushed, false},
            State#queue{items = queue:in(Item, Items), length = Length + 1};
        {empty, _} ->
            State#queue{pushers = queue:in({From, Item}, Pushers)}
    end.

%% A pop takes the oldest item, and lets the oldest waiting pusher's item
%% in, or waits for a push.
handle_pop(From, #queue{length = 0, poppers = Poppers} = State) ->
    State#queue{poppers = queue:in(From, Poppers)};
handle_pop(From, #queue{items = Items, length = Length, pushers = Pushers} = State) ->
    {{value, Item}, Rest} = queue:out(Items),
    From ! {popped, Item, false},
    case queue:out(Pushers) of
        {{value, {Pusher, Pushed}}, Waiting} ->
            Pusher ! {pushed, true},
            State#queue{items = queue:in(Pushed, Rest), pushers = Waiting};
        {empty, _} ->
            State#queue{items = Rest, length = Length - 1}
    end.

add({Count, Sum, Blocked}, {Counts, Sums, Blocks}) -> {Counts + Count, Sums + Sum, Blocks + Blocked}.

%% The JSON of the trial protocol (docs/protocol.md). OTP 25 has no json
%% module (OTP 27 brings one), so the kit carries this small, strict one.
%%
%% Decoding: objects become maps with binary keys, arrays lists, strings
%% binaries, numbers integers or floats, and true, false and null atoms.
%% Anything else (trailing text, a bare control character in a string, a
%% malformed number) is an error. Encoding takes the same terms, plus atom
%% keys and strings; a float is never encoded: the answer holds integers only.
-module(concbench_json).

-export([decode/1, encode/1]).

-spec decode(binary()) -> term().
decode(Text) ->
    {Value, Rest} = value(skip_space(Text)),
    case skip_space(Rest) of
        <<>> -> Value;
        Trailing -> error({json_trailing_text, Trailing})
    end.

-spec encode(term()) -> iodata().
encode(Map) when is_map(Map) ->
    Members = [[encode_string(Key), $:, encode(Value)] || {Key, Value} <- maps:to_list(Map)],
    [${, lists:join($,, Members), $}];
encode(List) when is_list(List) -> [$[, lists:join($,, [encode(Item) || Item <- List]), $]];
encode(Integer) when is_integer(Integer) -> integer_to_binary(Integer);
encode(Literal) when Literal =:= true; Literal =:= false; Literal =:= null -> atom_to_binary(Literal);
encode(String) when is_binary(String) -> encode_string(String).

encode_string(Atom) when is_atom(Atom) -> encode_string(atom_to_binary(Atom));
encode_string(String) -> [$", [escape(Char) || <<Char/utf8>> <= String], $"].

escape($") -> <<"\\\"">>;
escape($\\) -> <<"\\\\">>;
escape($\n) -> <<"\\n">>;
escape(Char) when Char < 16#20 -> io_lib:format("\\u~4.16.0b", [Char]);
escape(Char) -> <<Char/utf8>>.

value(<<${, Rest/binary>>) -> members(skip_space(Rest), #{});
value(<<$[, Rest/binary>>) -> items(skip_space(Rest), []);
value(<<$", Rest/binary>>) -> string(Rest, <<>>);
value(<<"true", Rest/binary>>) -> {true, Rest};
value(<<"false", Rest/binary>>) -> {false, Rest};
value(<<"null", Rest/binary>>) -> {null, Rest};
value(Text) -> number(Text).

members(<<$}, Rest/binary>>, Map) when map_size(Map) =:= 0 -> {Map, Rest};
members(<<$", Text/binary>>, Map) ->
    {Key, AfterKey} = string(Text, <<>>),
    <<$:, AfterColon/binary>> = skip_space(AfterKey),
    {Value, AfterValue} = value(skip_space(AfterColon)),
    case skip_space(AfterValue) of
        <<$,, Rest/binary>> -> members(skip_space(Rest), Map#{Key => Value});
        <<$}, Rest/binary>> -> {Map#{Key => Value}, Rest}
    end.

items(<<$], Rest/binary>>, []) -> {[], Rest};
items(Text, Items) ->
    {Value, AfterValue} = value(Text),
    case skip_space(AfterValue) of
        <<$,, Rest/binary>> -> items(skip_space(Rest), [Value | Items]);
        <<$], Rest/binary>> -> {lists:reverse(Items, [Value]), Rest}
    end.

string(<<$", Rest/binary>>, String) -> {String, Rest};
string(<<$\\, $u, Hex:4/binary, Rest/binary>>, String) ->
    Char = binary_to_integer(Hex, 16),
    string(Rest, <<String/binary, Char/utf8>>);
string(<<$\\, Escaped, Rest/binary>>, String) ->
    string(Rest, <<String/binary, (unescape(Escaped))>>);
string(<<Char/utf8, Rest/binary>>, String) when Char >= 16#20 ->
    string(Rest, <<String/binary, Char/utf8>>).

unescape($") -> $";
unescape($\\) -> $\\;
unescape($/) -> $/;
unescape($b) -> $\b;
unescape($f) -> $\f;
unescape($n) -> $\n;
unescape($r) -> $\r;
unescape($t) -> $\t.

%% A number is the longest run of number characters, which Erlang's own
%% readers then take whole or refuse. They take what the harness writes
%% (integers, and floats with a fraction part); an exponent without a
%% fraction part (1e5) is refused.
number(Text) ->
    Length = number_length(Text, 0),
    <<Digits:Length/binary, Rest/binary>> = Text,
    {to_number(Digits), Rest}.

number_length(Text, Length) ->
    case Text of
        <<_:Length/binary, Char, _/binary>> when
            Char >= $0, Char =< $9; Char =:= $-; Char =:= $+; Char =:= $.; Char =:= $e; Char =:= $E
        ->
            number_length(Text, Length + 1);
        _ ->
            Length
    end.

to_number(Digits) ->
    try
        binary_to_integer(Digits)
    catch
        error:badarg -> binary_to_float(Digits)
    end.

skip_space(<<Char, Rest/binary>>) when Char =:= $\s; Char =:= $\t; Char =:= $\n; Char =:= $\r ->
    skip_space(Rest);
skip_space(Text) ->
    Text.

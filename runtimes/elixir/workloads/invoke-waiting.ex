# Invocation with a wait (workloads/invoke-waiting.toml): as invoke, but each
# body yields to its scheduler once, :erlang.yield/0 (Elixir has no yield of
# its own), before it increments the counter (Concbench.Invocation).
defmodule :concbench_invoke_waiting do
  @spec task(:concbench_kit.run()) :: map()
  def task(run), do: Concbench.Invocation.task(run, &:erlang.yield/0)
end

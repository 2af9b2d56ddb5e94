# Mere invocation (workloads/invoke.toml): one operation starts a unit whose
# body increments a counter and gets its result, in the way `mode` says
# (Concbench.Invocation).
defmodule :concbench_invoke do
  @spec task(:concbench_kit.run()) :: map()
  def task(run), do: Concbench.Invocation.task(run, fn -> :ok end)
end

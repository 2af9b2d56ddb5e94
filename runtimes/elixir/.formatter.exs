# mix format --check-formatted (make lint), run in this folder.
[inputs: [".formatter.exs", "{kit,workloads}/*.ex"]]

package concbench.kit;

import concbench.workloads.Registry;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The Java kit's program: serves one trial (docs/protocol.md), the request on stdin, the answer as
 * the last line of stdout; anything else printed goes to stderr.
 */
public final class Main {
  /** The protocol's stdout: the answer, and a server's address before it (Run.listening). */
  static final PrintStream ANSWERS = System.out;

  private Main() {}

  public static void main(String[] args) throws IOException {
    System.setOut(System.err);
    if (List.of(args).equals(List.of("--train"))) {
      train();
      System.exit(0); // as a trial does: a unit left behind must not keep the JVM up
    }
    Map<String, Object> answer;
    int code = 0;
    try {
      answer = serve(request(stdin()));
    } catch (Refusal refusal) {
      answer = failure(refusal.getMessage());
    } catch (Exception | Error e) {
      e.printStackTrace();
      answer = failure(String.valueOf(e).replaceAll("\\s+", " "));
      code = 1;
    }
    answer.put("runtime", runtime());
    ANSWERS.println(Json.write(answer));
    ANSWERS.flush();
    // Exit now: a unit a mechanism failed to await must not keep the JVM up.
    System.exit(code);
  }

  /**
   * The build's training run (the Makefile's, for the JVM's ahead-of-time cache or class-data
   * archive): serves each request on stdin, one a line, in this one process, so that the JVM
   * records the classes and profiles of every cell. Answers are dropped, and a request that fails
   * is only said: each trial checks its own, and fails on its own.
   */
  private static void train() throws IOException {
    for (String line : stdin().lines().filter(l -> !l.isBlank()).toList()) {
      try {
        serve(request(line));
      } catch (Exception | Error e) {
        System.err.println("training: " + e + ", serving " + line);
      }
    }
  }

  private static String stdin() throws IOException {
    return new String(System.in.readAllBytes(), StandardCharsets.UTF_8);
  }

  private static Map<?, ?> request(String text) {
    if (!(Json.parse(text) instanceof Map<?, ?> request)) {
      throw new IllegalArgumentException("the request is not a JSON object");
    }
    return request;
  }

  private static Map<String, Object> serve(Map<?, ?> request) throws Exception {
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("ok", true);
    answer.put("runs", List.of());
    switch (String.valueOf(request.get("kind"))) {
      case "floor" -> {}
      case "list" -> answer.put("implements", implemented());
      case "fixed", "rate" -> answer.put("runs", runs(request));
      default -> throw new Refusal("unknown kind " + request.get("kind"));
    }
    return answer;
  }

  /** The warm-up runs the request asks for, then its timed runs, of the requested mechanism. */
  private static List<Map<String, Object>> runs(Map<?, ?> request) throws Exception {
    Mechanism mechanism = find((String) request.get("workload"), (String) request.get("mechanism"));
    @SuppressWarnings("unchecked")
    Map<String, Object> params = (Map<String, Object>) request.get("params");
    Path scratch = Path.of((String) request.get("scratch"));
    boolean isRate = "rate".equals(request.get("kind"));
    List<Map<String, Object>> runs = new ArrayList<>();
    Warmup warmup = new Warmup(request);
    while (warmup.due()) {
      for (long i = 0; i < warmup.group(); i++) {
        Map<String, Object> run = measure(mechanism, new Run(params, scratch), isRate);
        run.put("warmup", true);
        warmup.ran(run);
        runs.add(run);
      }
    }
    for (long i = 0; i < (Long) request.get("runs"); i++) {
      Map<String, Object> run = measure(mechanism, new Run(params, scratch), isRate);
      run.put("warmup", false);
      runs.add(run);
    }
    return runs;
  }

  /**
   * One run: the clocks around the mechanism's call (or its timed work, or from the start of its
   * rate loop to its return). A collection of the previous run's garbage is asked for first,
   * outside the clocks, so that no run pays for another's.
   */
  private static Map<String, Object> measure(Mechanism mechanism, Run run, boolean isRate)
      throws Exception {
    System.gc();
    Clock.Moment start = Clock.now();
    mechanism.run(run);
    return run.answer(new Clock.Span(start, Clock.now()), isRate);
  }

  private static Mechanism find(String workload, String mechanism) throws Refusal {
    Supplier<Workload> implementation = Registry.WORKLOADS.get(workload);
    Mechanism found =
        implementation == null ? null : implementation.get().mechanisms().get(mechanism);
    if (found != null) {
      return found;
    }
    throw new Refusal("mechanism " + mechanism + " is not implemented for workload " + workload);
  }

  /** The protocol's list answer: every workload with its mechanisms. */
  private static Map<String, Object> implemented() {
    Map<String, Object> out = new TreeMap<>();
    Registry.WORKLOADS.forEach(
        (id, implementation) ->
            out.put(id, new TreeSet<>(implementation.get().mechanisms().keySet())));
    return out;
  }

  private static Map<String, Object> failure(String error) {
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("ok", false);
    answer.put("error", error);
    answer.put("runs", List.of());
    return answer;
  }

  /**
   * The JVM and the flags in force: those on its command line (the Makefile's JVMFLAGS, its archive
   * by file name only), whether it shares classes from that archive (the JVM says "sharing" once it
   * has mapped it, and runs without any shared classes where the archive does not fit), what its
   * ergonomics chose from the machine (the collector, the processors it sees and the most heap it
   * may take), and the kit's collection before each run.
   */
  private static Map<String, Object> runtime() {
    List<String> flags = new ArrayList<>();
    for (String flag : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      flags.add(flag.replaceFirst("^(-XX:(AOTCache|SharedArchiveFile)=).*/", "$1"));
    }
    flags.add(
        "class sharing "
            + (System.getProperty("java.vm.info", "").contains("sharing") ? "on" : "off"));
    flags.add(
        "gc="
            + ManagementFactory.getGarbageCollectorMXBeans().stream()
                .map(GarbageCollectorMXBean::getName)
                .collect(Collectors.joining(",")));
    flags.add("gc before each run"); // measure's System.gc
    flags.add("processors=" + parallelism());
    flags.add("max_heap_mib=" + Runtime.getRuntime().maxMemory() / (1024 * 1024));
    Map<String, Object> runtime = new LinkedHashMap<>();
    // Another JVM language's kit runs this one with its own name (runtimes/kotlin).
    runtime.put("name", System.getProperty("concbench.runtime", "java"));
    runtime.put(
        "version",
        Runtime.version()
            + " ("
            + System.getProperty("java.vendor.version", System.getProperty("java.vendor"))
            + ")");
    runtime.put("flags", flags);
    runtime.put("parallelism", parallelism());
    return runtime;
  }

  /**
   * The CPUs the JVM sized itself to (docs/protocol.md, "CPUs"): its available processors, which
   * the JVM reads from its affinity mask, so a trial confined to k CPUs sees k without the kit's
   * help, and so do the pools sized from that count: the common ForkJoinPool, the virtual threads'
   * scheduler, the map rows' pools of {@code workers} 0, the future row's pool, Kotlin's
   * Dispatchers.Default (one thread per processor, at least 2) and Pekko's default dispatcher (one
   * per processor, at least its parallelism-min of 8). At one CPU the JVM's ergonomics also choose
   * the Serial collector over G1, as on any one-CPU machine (the flags name it).
   */
  private static long parallelism() { // a Long: Json writes integers as Longs
    return Runtime.getRuntime().availableProcessors();
  }
}

package concbench.lib;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Pins the calling thread to the CPU it is on, as c/pthread and jruby/thread pin theirs, through
 * the C library's sched_getcpu and sched_setaffinity called with the FFM API (the JDK has no call
 * of its own). The threads it starts meanwhile inherit the mask; closing restores the mask it had.
 */
public final class OneCpu implements AutoCloseable {
  private static final long MASK = 128; // bytes: a cpu_set_t (1024 CPUs)
  private static final MethodHandle SCHED_GETCPU =
      libc("sched_getcpu", FunctionDescriptor.of(JAVA_INT));
  private static final FunctionDescriptor AFFINITY =
      FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS);
  private static final MethodHandle SCHED_GETAFFINITY = libc("sched_getaffinity", AFFINITY);
  private static final MethodHandle SCHED_SETAFFINITY = libc("sched_setaffinity", AFFINITY);

  private final Arena arena = Arena.ofConfined();
  private final MemorySegment was = arena.allocate(MASK);

  /** Pins the calling thread (pid 0: the caller) to its CPU. */
  public OneCpu() {
    try {
      check("sched_getaffinity", (int) SCHED_GETAFFINITY.invokeExact(0, MASK, was));
      int cpu = (int) SCHED_GETCPU.invokeExact();
      check("sched_getcpu", cpu);
      MemorySegment one = arena.allocate(MASK);
      one.set(JAVA_LONG, cpu / 64 * 8L, 1L << (cpu % 64));
      check("sched_setaffinity", (int) SCHED_SETAFFINITY.invokeExact(0, MASK, one));
    } catch (Throwable e) {
      arena.close();
      throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
    }
  }

  /** Restores the calling thread's mask (the same thread that pinned it). */
  @Override
  public void close() {
    try {
      check(
          "sched_setaffinity (restoring the mask)",
          (int) SCHED_SETAFFINITY.invokeExact(0, MASK, was));
    } catch (Throwable e) {
      throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
    } finally {
      arena.close();
    }
  }

  private static void check(String call, int returned) {
    if (returned < 0) {
      throw new IllegalStateException(call + " failed");
    }
  }

  private static MethodHandle libc(String name, FunctionDescriptor signature) {
    Linker linker = Linker.nativeLinker();
    return linker.downcallHandle(linker.defaultLookup().find(name).orElseThrow(), signature);
  }
}

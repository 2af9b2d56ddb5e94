# The archive a JVM kit's trials start from (included by the Java and Kotlin
# Makefiles, after JDKMAJOR): the classes a trial loads, loaded and linked
# once at build time by a training run over every cell of the runtime at the
# smoke profile's size (training-requests; the kit's --train serves them in
# one JVM), so that no trial does it again. On JDK 25 and later it is the
# ahead-of-time cache (JEP 483 and 515: the classes loaded and linked, and
# the methods' profiles, which the JIT starts from); on an older JDK, a
# dynamic class-data-sharing archive (AppCDS: the classes only). A JVM that
# cannot map it says so on stderr and runs without it; the kit's flags say
# whether it shares classes.
# A trial confined to one CPU (concbench run --cpus 1) runs the Serial
# collector, the JVM's choice on one CPU, where the training run, on every
# CPU, ran G1: the JVM still maps the cache's classes, loads its heap objects
# and replays its profiles, silently, and drops only its compiled adapters
# ("AOT Code Cache disabled: it was created with different GC", shown by
# -Xlog:aot+codecache=debug). Measured on the shared 2-core VM (taskset -c 0,
# a small ring/virtual trial, medians of 15 and 20 interleaved rounds): a
# trial took 373 and 595 ms from this cache, 361 and 576 ms from one a
# training run on one CPU made, 635 and 820 ms from none; its first run 31
# and 45, 31 and 48, 59 and 91 ms. So one cache serves every --cpus.
ifeq ($(shell [ "$(JDKMAJOR)" -ge 25 ] 2>/dev/null && echo aot),aot)
ARCHIVE_OF = $(BUILD)/$(1).aot
RECORD     := -XX:AOTCacheOutput=
START_FROM := -XX:AOTCache=
else
ARCHIVE_OF = $(BUILD)/$(1).jsa
RECORD     := -XX:ArchiveClassesAtExit=
START_FROM := -XX:SharedArchiveFile=
endif
# What a training run's requests come from: the script, the specs and the
# runtime's manifest (its cells).
TRAINING_INPUTS := $(JAVA_KIT)/training-requests $(wildcard $(JAVA_KIT)/../../workloads/*.toml) runtime.toml

# $(call train,ARCHIVE,JVM,ARGUMENTS): the training run of the JVM and its
# flags as a trial runs them, then the arguments that make the kit serve the
# training requests on stdin; its output in build/training.log, shown if it
# made no archive (one a failed run left is removed, lest make take it for
# done), and the requests it could not serve said (each such cell's trials
# fail on their own).
train = rm -rf "$(BUILD)/training" "$(1)" && \
	python3 "$(JAVA_KIT)/training-requests" . "$(JAVA_KIT)/../../workloads" "$(BUILD)/training" > "$(BUILD)/training.jsonl" && \
	{ $(2) $(RECORD)"$(1)" $(3) < "$(BUILD)/training.jsonl" > "$(BUILD)/training.log" 2>&1 && \
	  test -s "$(1)" || { cat "$(BUILD)/training.log" >&2; rm -f "$(1)"; echo "the training run made no $(1)" >&2; exit 1; }; } && \
	{ grep '^training: ' "$(BUILD)/training.log" >&2; rm -rf "$(BUILD)/training"; }

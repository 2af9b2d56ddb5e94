// 10,000 tasks (workloads/spawn.toml): start `tasks` units at once; unit i
// sleeps `delay_ms` if that is more than 0, then returns i; await them all
// and sum what they returned.
package concbench.workloads

import concbench.coroutines.asyncUnit
import concbench.coroutines.timedOnDefault
import concbench.kit.Mechanism
import concbench.kit.Run
import concbench.kit.Workload
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.delay

/** One coroutine per task (async on Dispatchers.Default), its Deferred awaited. */
class Spawn : Workload {
    override fun mechanisms() = mapOf("coroutine" to Mechanism(::spawn))

    private fun spawn(run: Run) {
        val tasks = run.count("tasks")
        val delayMs = run.integer("delay_ms")
        var sum = 0L
        run.timedOnDefault {
            val returned =
                List(tasks) { i ->
                    asyncUnit(run.units()) {
                        if (delayMs > 0) {
                            delay(delayMs)
                        }
                        i.toLong()
                    }
                }
            sum = returned.awaitAll().sum()
        }
        run.result("sum", sum)
    }
}

// Futures (workloads/future.toml): create `futures` futures, all before
// awaiting any; future i computes (i x i) mod 1,000; then await each one
// and sum the values.
package concbench.workloads

import concbench.coroutines.asyncUnit
import concbench.coroutines.timedOnDefault
import concbench.kit.Mechanism
import concbench.kit.Run
import concbench.kit.Workload

/** A Deferred per future (async on Dispatchers.Default), each awaited in turn. */
class Future : Workload {
    override fun mechanisms() = mapOf("coroutine" to Mechanism(::future))

    private fun future(run: Run) {
        val futures = run.count("futures")
        var sum = 0L
        run.timedOnDefault {
            val values = List(futures) { i -> asyncUnit(run.units()) { i.toLong() * i % 1000 } }
            for (value in values) {
                sum += value.await()
            }
        }
        run.result("sum", sum)
    }
}

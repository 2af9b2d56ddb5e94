-- | Pool: a pool of `pool_size` workers serves `jobs` jobs. Before the
-- timing, a table of `keys` entries is made, key k holding 2k + 1. Job j
-- looks up key j mod `keys` and returns its value. All jobs are submitted,
-- then all are awaited, and the values are summed.
--
-- The jobs go through one unbounded queue; each carries a box for its value.
-- The pool's units are its workers (the submitter is the caller); the spec
-- declares no evidence, so the queue's tallies are not reported.
module Workloads.Pool (mechanisms) where

import Control.Concurrent.Async (concurrently, forConcurrently_)
import Control.Exception (evaluate)
import Control.Monad (forM, replicateM, replicateM_)
import qualified Data.IntMap.Strict as IntMap

import Kit

mechanisms :: [(String, Mechanism)]
mechanisms = [("forkio", pool forkio), ("stm", pool stm), ("async", asyncPool)]

data Setup = Setup { poolSize, jobs, keys :: Int, table :: IntMap.IntMap Int }

prepare :: Params -> IO Setup
prepare params = do
  n <- int params "keys"
  entries <- evaluate (IntMap.fromDistinctAscList [(k, 2 * k + 1) | k <- [0 .. n - 1]])
  Setup <$> int params "pool_size" <*> int params "jobs" <*> pure n <*> pure entries

-- | A job's number and the box for its value; Nothing stops a worker.
type Job = Maybe (Int, Box Int)

-- | A worker: serves jobs until it is stopped.
work :: Setup -> Queue Job -> IO ()
work s q = newTally >>= serve
  where
    serve t = pop q t >>= maybe (pure ()) (\(j, out) ->
      putBox out (table s IntMap.! (j `mod` keys s)) >> serve t)

-- | Submits every job, then a stop per worker; awaits every job's value and
-- returns their sum.
submit :: Prims -> Setup -> Queue Job -> IO Int
submit prims s q = do
  t <- newTally
  outs <- forM [0 .. jobs s - 1] $ \j -> do
    out <- newBox prims
    push q t (Just (j, out))
    pure out
  replicateM_ (poolSize s) (push q t Nothing)
  foldStrict (map takeBox outs)

-- | Workers forked and awaited one by one.
pool :: Prims -> Mechanism
pool prims params = do
  s <- prepare params
  pure Run
    { slots = poolSize s, counting = Stamped
    , timed = \census -> do
        q <- newQueue prims 0
        workers <- replicateM (poolSize s) (fork prims census (work s q))
        total <- submit prims s q
        sequence_ workers
        pure (Outcome [("sum", total)] [])
    }

-- | The forkio row's queue and MVars, with the workers made by
-- forConcurrently_, beside the submitter with concurrently. Both fork both
-- sides of each step: two threads per worker, two for concurrently,
-- counted by the RTS (Kit's header).
asyncPool :: Mechanism
asyncPool params = do
  s <- prepare params
  pure Run
    { slots = poolSize s, counting = Created
    , timed = \census -> do
        q <- newQueue forkio 0
        (_, total) <- concurrently
          (forConcurrently_ [0 .. poolSize s - 1] (\i -> unit census i (work s q)))
          (submit forkio s q)
        pure (Outcome [("sum", total)] [])
    }

-- | Pool: a pool of `pool_size` workers serves `jobs` jobs. Before the
-- timing, a table of `keys` entries is made, key k holding 2k + 1. Job j
-- looks up key j mod `keys` and returns its value. All jobs are submitted,
-- then all are awaited, and the values are summed.
--
-- The jobs go through one queue; each carries a box for its value.
module Workloads.Pool (mechanisms) where

import Control.Concurrent.Async (concurrently, replicateConcurrently_)
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
work s q = pop q >>= maybe (pure ()) (\(j, out) ->
  putBox out (table s IntMap.! (j `mod` keys s)) >> work s q)

-- | Submits every job, then a stop per worker; awaits every job's value and
-- returns their sum.
submit :: Prims -> Setup -> Queue Job -> IO Int
submit prims s q = do
  outs <- forM [0 .. jobs s - 1] $ \j -> do
    out <- newBox prims
    push q (Just (j, out))
    pure out
  replicateM_ (poolSize s) (push q Nothing)
  foldStrict (map takeBox outs)

-- | Workers forked and awaited one by one.
pool :: Prims -> Mechanism
pool prims params = do
  s <- prepare params
  pure $ do
    q <- newQueue prims
    workers <- replicateM (poolSize s) (fork prims (work s q))
    total <- submit prims s q
    sequence_ workers
    pure (Outcome [("sum", total)] (poolSize s))

-- | The forkio row's Chan and MVars, with the workers made by
-- replicateConcurrently_, beside the submitter with concurrently. Both fork
-- both sides of each step: two threads per worker, two for concurrently.
asyncPool :: Mechanism
asyncPool params = do
  s <- prepare params
  pure $ do
    q <- newQueue forkio
    (_, total) <- concurrently (replicateConcurrently_ (poolSize s) (work s q)) (submit forkio s q)
    pure (Outcome [("sum", total)] (2 * poolSize s + 2))

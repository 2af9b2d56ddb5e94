{-# LANGUAGE BangPatterns #-}
-- | Queue: each group has one queue. Its `producers` units each push the
-- values 1..`items`; once every producer is done, one stop token per consumer
-- is pushed; its `consumers` units pop until they get a stop token, counting
-- and summing what they popped.
module Workloads.Queue (mechanisms) where

import Control.Concurrent.Async (concurrently, replicateConcurrently, replicateConcurrently_)
import Control.Monad (forM_, replicateM, replicateM_)

import Kit

mechanisms :: [(String, Mechanism)]
mechanisms = [("forkio", queue forkio), ("stm", queue stm), ("async", asyncQueue)]

data Setup = Setup { groups, producers, consumers, items :: Int }

prepare :: Params -> IO Setup
prepare params = Setup <$> int params "groups" <*> int params "producers"
                       <*> int params "consumers" <*> int params "items"

-- | Values are Just; Nothing is the stop token.
produce :: Setup -> Queue (Maybe Int) -> IO ()
produce s q = forM_ [1 .. items s] (push q . Just)

-- | Pops until the stop token: (count, sum).
consume :: Queue (Maybe Int) -> IO (Int, Int)
consume q = loop 0 0
  where
    loop !count !total = pop q >>= maybe (pure (count, total)) (\v -> loop (count + 1) (total + v))

report :: [(Int, Int)] -> Int -> Outcome
report totals = Outcome [("count", sum (map fst totals)), ("sum", sum (map snd totals))]

-- | Each group's units forked, its producers awaited before its stop tokens,
-- then every consumer awaited.
queue :: Prims -> Mechanism
queue prims params = do
  s <- prepare params
  pure $ do
    started <- replicateM (groups s) $ do
      q <- newQueue prims
      cs <- replicateM (consumers s) (fork prims (consume q))
      ps <- replicateM (producers s) (fork prims (produce s q))
      pure (q, ps, cs)
    forM_ started $ \(q, ps, _) -> sequence_ ps >> replicateM_ (consumers s) (push q Nothing)
    totals <- sequence [c | (_, _, cs) <- started, c <- cs]
    pure (report totals (groups s * (producers s + consumers s)))

-- | The forkio row's Chan, with the units structured by async: the groups with
-- replicateConcurrently; in each, its producers (then the stop tokens) and its
-- consumers side by side with concurrently. Concurrently's <*> and <>, and
-- concurrently, each fork both of their sides: two threads per group for the
-- groups, two per group for concurrently, two per producer and per consumer.
asyncQueue :: Mechanism
asyncQueue params = do
  s <- prepare params
  pure $ do
    totals <- fmap concat . replicateConcurrently (groups s) $ do
      q <- newQueue forkio
      snd <$> concurrently
        (replicateConcurrently_ (producers s) (produce s q) >> replicateM_ (consumers s) (push q Nothing))
        (replicateConcurrently (consumers s) (consume q))
    pure (report totals (2 * groups s * (2 + producers s + consumers s)))

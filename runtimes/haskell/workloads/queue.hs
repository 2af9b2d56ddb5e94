{-# LANGUAGE BangPatterns #-}
-- | Queue: each group has one queue, holding at most `capacity` items (0: no
-- bound). Its `producers` units each push the values 1..`items`; once every
-- producer is done, one stop token per consumer is pushed; its `consumers`
-- units pop until they get a stop token, counting and summing what they
-- popped.
--
-- Evidence: blocked = pushes that found the queue full + pops that found it
-- empty (Kit's Queue), each unit counting its own in a tally of its own and
-- returning it with its result; the caller's stop tokens are pushes too,
-- counted in its own tally. The totals are summed after the units are awaited.
module Workloads.Queue (mechanisms) where

import Control.Concurrent.Async (concurrently, forConcurrently)
import Control.Monad (forM_, replicateM, replicateM_)

import Kit

mechanisms :: [(String, Mechanism)]
mechanisms = [("forkio", queue forkio), ("stm", queue stm), ("async", asyncQueue)]

data Setup = Setup { groups, producers, consumers, items, capacity :: Int }

prepare :: Params -> IO Setup
prepare params = Setup <$> int params "groups" <*> int params "producers"
                       <*> int params "consumers" <*> int params "items" <*> int params "capacity"

-- | Values are Just; Nothing is the stop token. Returns the pushes that waited.
produce :: Setup -> Queue (Maybe Int) -> IO Int
produce s q = do
  t <- newTally
  forM_ [1 .. items s] (push q t . Just)
  tallied t

-- | What a consumer hands back: count, sum, pops that waited.
data Consumed = Consumed !Int !Int !Int

-- | Pops until the stop token.
consume :: Queue (Maybe Int) -> IO Consumed
consume q = newTally >>= loop 0 0
  where
    loop !count !total t = pop q t >>= maybe (Consumed count total <$> tallied t)
                                              (\v -> loop (count + 1) (total + v) t)

-- | The stop tokens, from the caller: the pushes that waited.
stop :: Setup -> Queue (Maybe Int) -> IO Int
stop s q = do
  t <- newTally
  replicateM_ (consumers s) (push q t Nothing)
  tallied t

report :: [Consumed] -> Int -> Outcome
report consumed waited = Outcome
  [("count", sum [c | Consumed c _ _ <- consumed]), ("sum", sum [v | Consumed _ v _ <- consumed])]
  [("blocked", Just (waited + sum [w | Consumed _ _ w <- consumed]))]

-- | Each group's units forked, its producers awaited before its stop tokens,
-- then every consumer awaited.
queue :: Prims -> Mechanism
queue prims params = do
  s <- prepare params
  pure Run
    { slots = groups s * (producers s + consumers s), counting = Stamped
    , timed = \census -> do
        started <- replicateM (groups s) $ do
          q <- newQueue prims (capacity s)
          cs <- replicateM (consumers s) (fork prims census (consume q))
          ps <- replicateM (producers s) (fork prims census (produce s q))
          pure (q, ps, cs)
        waits <- foldStrict [foldStrict ps >>= \w -> (w +) <$> stop s q | (q, ps, _) <- started]
        consumed <- sequence [c | (_, _, cs) <- started, c <- cs]
        pure (report consumed waits)
    }

-- | The forkio row's queues, with the units structured by async: the groups
-- with forConcurrently; in each, its producers (then the stop tokens) and its
-- consumers side by side with concurrently, each side's units with
-- forConcurrently. Concurrently's <*> and concurrently fork both of their
-- sides: two threads per group for the groups, two per group for
-- concurrently, two per producer and per consumer, all counted by the RTS
-- (Kit's header). Group g's producer p is in slot g * (producers +
-- consumers) + p, its consumer c after the producers.
asyncQueue :: Mechanism
asyncQueue params = do
  s <- prepare params
  let width = producers s + consumers s
  pure Run
    { slots = groups s * width, counting = Created
    , timed = \census -> do
        perGroup <- forConcurrently [0 .. groups s - 1] $ \g -> do
          q <- newQueue forkio (capacity s)
          concurrently
            (do waits <- forConcurrently [0 .. producers s - 1] $ \p ->
                  unit census (g * width + p) (produce s q)
                (sum waits +) <$> stop s q)
            (forConcurrently [0 .. consumers s - 1] $ \c ->
               unit census (g * width + producers s + c) (consume q))
        pure (report (concatMap snd perGroup) (sum (map fst perGroup)))
    }

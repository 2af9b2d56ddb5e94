{-# LANGUAGE BangPatterns #-}
-- | Countdown latch: `count` units are made at the start of a run and serve
-- all its rounds. In each of `rounds` rounds the caller makes a latch of
-- `count`, asks every unit to count it down once (through the unit's box,
-- the request carrying the round's number), and waits until it reaches
-- zero. Unit k (0-based) adds (k + 1) x (r + 1) to a tally of its own for
-- the count-down it makes in round r (0-based), reduced modulo
-- 1,000,000,007; the caller sums the tallies after awaiting the units.
module Workloads.Latch (mechanisms) where

import Control.Concurrent.MVar (modifyMVar_, newEmptyMVar, newMVar, putMVar, takeMVar)
import Control.Concurrent.STM
import Control.Monad (replicateM, when, zipWithM)

import Kit

mechanisms :: [(String, Mechanism)]
mechanisms = [("forkio", latch forkio mvarLatch), ("stm", latch stm tvarLatch)]

modulus :: Int
modulus = 1000000007

data Latch = Latch { countDown :: IO (), awaitZero :: IO () }

-- | An MVar holding the count; the unit that takes it to zero fills a second MVar.
mvarLatch :: Int -> IO Latch
mvarLatch n = do
  left <- newMVar n
  zero <- newEmptyMVar
  pure Latch
    { countDown = modifyMVar_ left $ \k -> when (k == 1) (putMVar zero ()) >> pure (k - 1)
    , awaitZero = takeMVar zero
    }

-- | A TVar counted down; the caller retries until it reads zero.
tvarLatch :: Int -> IO Latch
tvarLatch n = do
  left <- newTVarIO n
  pure Latch
    { countDown = atomically (modifyTVar' left (subtract 1))
    , awaitZero = atomically (readTVar left >>= check . (== 0))
    }

-- | What a unit hands back: its count-downs and its checksum tally.
data Served = Served !Int !Int

-- | Unit k: counts down every latch it is handed until it gets Nothing.
serve :: Int -> Box (Maybe (Int, Latch)) -> IO Served
serve k box = loop 0 0
  where
    loop !n !tally = takeBox box >>= maybe (pure (Served n tally)) (\(r, l) -> do
      countDown l
      loop (n + 1) ((tally + (k + 1) * (r + 1)) `mod` modulus))

latch :: Prims -> (Int -> IO Latch) -> Mechanism
latch prims newLatch params = do
  count <- int params "count"
  rounds <- int params "rounds"
  pure Run
    { slots = count, counting = Stamped
    , timed = \census -> do
        boxes <- replicateM count (newBox prims)
        units <- zipWithM (\k box -> fork prims census (serve k box)) [0 ..] boxes
        woke <- foldStrict . flip map [0 .. rounds - 1] $ \r -> do
          l <- newLatch count
          mapM_ (`putBox` Just (r, l)) boxes
          awaitZero l
          pure 1
        mapM_ (`putBox` Nothing) boxes
        served <- sequence units
        pure (Outcome
          [ ("rounds", woke)
          , ("countdowns", sum [n | Served n _ <- served])
          , ("checksum", foldl (\a (Served _ t) -> (a + t) `mod` modulus) 0 served)
          ] [])
    }

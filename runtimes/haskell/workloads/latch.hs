{-# LANGUAGE BangPatterns #-}
-- | Countdown latch: `count` units are made at the start of a run and serve
-- all its rounds. In each of `rounds` rounds the caller makes a latch of
-- `count`, asks every unit to count it down once (through the unit's box),
-- and waits until it reaches zero.
module Workloads.Latch (mechanisms) where

import Control.Concurrent.MVar (modifyMVar_, newEmptyMVar, newMVar, putMVar, takeMVar)
import Control.Concurrent.STM
import Control.Monad (replicateM, when)

import Kit

mechanisms :: [(String, Mechanism)]
mechanisms = [("forkio", latch forkio mvarLatch), ("stm", latch stm tvarLatch)]

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

-- | A unit: counts down every latch it is handed until it gets Nothing;
-- returns how many it counted down.
serve :: Box (Maybe Latch) -> IO Int
serve box = loop 0
  where
    loop !n = takeBox box >>= maybe (pure n) (\l -> countDown l >> loop (n + 1))

latch :: Prims -> (Int -> IO Latch) -> Mechanism
latch prims newLatch params = do
  count <- int params "count"
  rounds <- int params "rounds"
  pure $ do
    boxes <- replicateM count (newBox prims)
    units <- mapM (fork prims . serve) boxes
    woke <- foldStrict . replicate rounds $ do
      l <- newLatch count
      mapM_ (`putBox` Just l) boxes
      awaitZero l
      pure 1
    mapM_ (`putBox` Nothing) boxes
    countdowns <- foldStrict units
    pure (Outcome [("rounds", woke), ("countdowns", countdowns)] count)

{-# LANGUAGE CPP #-}
-- | Spawn: start `tasks` units at once; unit i sleeps `delay_ms` if that is
-- above 0, then returns i; await them all and sum what they returned.
module Workloads.Spawn (mechanisms) where

import Control.Concurrent (forkIO, threadDelay)
import Control.Concurrent.Async (mapConcurrently)
import Control.Concurrent.STM
import Control.Monad (forM_, when)
import Data.List (foldl')

#if defined(STREAMLY)
import qualified Streamly.Data.Fold as Fold
import Streamly.Data.Stream.Prelude (Config, maxBuffer, maxThreads, ordered)
import qualified Streamly.Data.Stream.Prelude as Stream
#else
import Control.Exception (throwIO)
#endif

import Kit

mechanisms :: [(String, Mechanism)]
mechanisms =
  [ ("forkio", forkioSpawn), ("async", asyncSpawn), ("stm", stmSpawn)
  , ("streamly", streamlySpawn True), ("streamly_unordered", streamlySpawn False) ]

-- | The number of tasks, and task i.
prepare :: Params -> IO (Int, Int -> IO Int)
prepare params = do
  tasks <- int params "tasks"
  delay <- int params "delay_ms"
  pure (tasks, \i -> when (delay > 0) (threadDelay (delay * 1000)) >> pure i)

-- | forkIO and an MVar per task.
forkioSpawn :: Mechanism
forkioSpawn params = do
  (tasks, task) <- prepare params
  pure Run
    { slots = tasks, counting = Stamped
    , timed = \census -> do
        awaits <- mapM (fork forkio census . task) [0 .. tasks - 1]
        total <- foldStrict awaits
        pure (Outcome [("sum", total)] [])
    }

-- | The seed's code. mapConcurrently runs Concurrently's <*>, which forks
-- both of its sides: a thread for each task and one for the rest of the
-- list, 2 x tasks threads, counted by the RTS (Kit's header).
asyncSpawn :: Mechanism
asyncSpawn params = do
  (tasks, task) <- prepare params
  pure Run
    { slots = tasks, counting = Created
    , timed = \census -> do
        values <- mapConcurrently (\i -> unit census i (task i)) [0 .. tasks - 1]
        pure (Outcome [("sum", foldl' (+) 0 values)] [])
    }

-- | Each task adds its value to a TVar and counts itself done in the same
-- transaction; the caller waits until every task is done.
stmSpawn :: Mechanism
stmSpawn params = do
  (tasks, task) <- prepare params
  pure Run
    { slots = tasks, counting = Stamped
    , timed = \census -> do
        sums <- newTVarIO 0
        done <- newTVarIO 0
        forM_ [0 .. tasks - 1] $ \i -> forkIO $ do
          value <- unit census i (task i)
          atomically (modifyTVar' sums (+ value) >> modifyTVar' done (+ (1 :: Int)))
        total <- atomically $ do
          finished <- readTVar done
          check (finished == tasks)
          readTVar sums
        pure (Outcome [("sum", total)] [])
    }

#if defined(STREAMLY)
-- | The seed's streamly code in streamly 0.10's API: the tasks as a stream
-- of actions run by parSequence with no limit on threads or buffer (the
-- seed's maxThreads (-1) and maxBuffer (-1)), in order (the seed's aheadly:
-- ordered True) or as they finish (its asyncly), folded into their sum.
-- streamly starts the worker threads it decides to, each running tasks one
-- after another: the tasks are the units, stamped (Kit's Pooled), and
-- peak_live shows how many ran at once.
streamlySpawn :: Bool -> Mechanism
streamlySpawn inOrder params = do
  (tasks, task) <- prepare params
  let unlimited :: Config -> Config
      unlimited = ordered inOrder . maxThreads (-1) . maxBuffer (-1)
  pure Run
    { slots = tasks, counting = Pooled
    , timed = \census -> do
        total <- Stream.fold Fold.sum $ Stream.parSequence unlimited
          $ Stream.fromList [unit census i (task i) | i <- [0 .. tasks - 1]]
        pure (Outcome [("sum", total)] [])
    }
#else
streamlySpawn :: Bool -> Mechanism
streamlySpawn _ _ = throwIO (builtWithout "streamly")
#endif

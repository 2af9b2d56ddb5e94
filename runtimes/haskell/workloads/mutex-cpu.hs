{-# LANGUAGE BangPatterns #-}
-- | Mutex, CPU-bound: each group has one lock and one counter; each of its
-- `workers` units, `iterations` times, its iteration i counting from 0,
-- makes the subject "foobar" * 100 followed by i in decimal, locks, reads
-- the counter, matches /foo(.+)$/ against the subject, writes back the
-- counter read plus the length of the capture (597 plus i's digits) and
-- unlocks. The subject is a new strict ByteString each iteration (the
-- prefix appended with i's show), evaluated before the lock is taken, so
-- that the lock does not hold its making.
--
-- The engine is regex-pcre (libpcre, without its JIT), the pattern compiled
-- once before the timing. Its execute is an IO action, so every match runs
-- when its critical section does, not when its result is first needed.
--
-- The lock holds the counter, as Haskell guards a value: forkio, an MVar Int
-- (takeMVar locks and reads, putMVar writes back and unlocks); stm, a TMVar
-- Int taken and put in the same way. A transaction cannot do the match (it
-- is IO, and a pure one would be shared), so "read, match, write in one
-- transaction" is not an option; the TMVar is STM's lock, and its take is
-- the STM analogue of a blocking lock: a retry that parks the unit until
-- the TMVar is filled.
--
-- Evidence: contended = acquisitions that found the lock held: tryTakeMVar
-- (tryTakeTMVar, one transaction) found it empty before the blocking take.
-- Each unit counts its own in a local and returns it; the counts are summed
-- after the units are awaited.
module Workloads.MutexCpu (mechanisms) where

import Control.Concurrent.MVar
import Control.Concurrent.STM
import Control.Exception (evaluate, mask, onException, throwIO)
import Control.Monad (replicateM, (>=>))
import Data.Array ((!))
import qualified Data.ByteString.Char8 as B
import Text.Regex.PCRE.ByteString (compBlank, compile, execBlank, execute)

import Kit

mechanisms :: [(String, Mechanism)]
mechanisms = [("forkio", mutexCpu forkio mvarGroup), ("stm", mutexCpu stm tmvarGroup)]

-- | A group's lock, which holds its counter: enter locks, reads the counter
-- and runs the action; writes back the counter plus what the action returned
-- and unlocks; it returns whether it found the lock held. counted reads the
-- counter once every unit is done.
data Group = Group { enter :: IO Int -> IO Bool, counted :: IO Int }

mvarGroup :: IO Group
mvarGroup = do
  lock <- newMVar 0
  pure Group
    { enter = \action -> mask $ \restore -> do
        free <- tryTakeMVar lock
        counter <- maybe (takeMVar lock) pure free
        n <- restore action `onException` putMVar lock counter
        putMVar lock $! counter + n
        pure (null free)
    , counted = readMVar lock
    }

tmvarGroup :: IO Group
tmvarGroup = do
  lock <- newTMVarIO 0
  pure Group
    { enter = \action -> mask $ \restore -> do
        free <- atomically (tryTakeTMVar lock)
        counter <- maybe (atomically (takeTMVar lock)) pure free
        n <- restore action `onException` atomically (putTMVar lock counter)
        atomically (putTMVar lock $! counter + n)
        pure (null free)
    , counted = atomically (readTMVar lock)
    }

-- | The length of the capture in a subject, by a fresh match each time.
captureLength :: IO (B.ByteString -> IO Int)
captureLength = do
  compiled <- compile compBlank execBlank (B.pack "foo(.+)$")
  pattern <- either (\(_, e) -> throwIO (KitError ("pcre compile: " ++ e))) pure compiled
  pure (execute pattern >=> captured)
  where
    captured (Right (Just captures)) = pure $! snd (captures ! 1)
    captured (Right Nothing) = throwIO (KitError "pcre: no match")
    captured (Left (_, e)) = throwIO (KitError ("pcre execute: " ++ e))

-- | Iteration i's subject: the prefix, then i in decimal.
subjectOf :: Int -> B.ByteString
subjectOf i = prefix <> B.pack (show i)

-- | "foobar" * 100, made once.
prefix :: B.ByteString
prefix = B.concat (replicate 100 (B.pack "foobar"))

-- | A worker: its critical sections; returns how many found the lock held.
worker :: Int -> (B.ByteString -> IO Int) -> Group -> IO Int
worker iterations match g = loop 0 0
  where
    loop i !contended
      | i == iterations = pure contended
      | otherwise = do
          subject <- evaluate (subjectOf i)
          held <- enter g (match subject)
          loop (i + 1) (if held then contended + 1 else contended)

mutexCpu :: Prims -> IO Group -> Mechanism
mutexCpu prims newGroup params = do
  groups <- int params "groups"
  workers <- int params "workers"
  iterations <- int params "iterations"
  match <- captureLength
  pure Run
    { slots = groups * workers, counting = Stamped
    , timed = \census -> do
        gs <- replicateM groups newGroup
        awaits <- sequence [fork prims census (worker iterations match g) | g <- gs, _ <- [1 .. workers]]
        contended <- foldStrict awaits
        total <- foldStrict (map counted gs)
        pure (Outcome [("sum", total)] [("contended", Just contended)])
    }
